#include "model/policy/plans.h"

#include "model/policy/limitconversion.h"
#include "model/policy/limitfields.h"

#include "model/policy/ratesyntax.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

namespace qs {

namespace {

Diagnostic mapError(const QString &path, int line, int column, const QString &message)
{
    return Diagnostic{Diagnostic::Severity::Error, path, line, column,
        QStringLiteral("plans.from.map"), message, -1, {}, {}};
}

bool isValueByte(char c)
{
    return c > ' ' && c < 0x7f;
}

} // namespace

PlanMapReadResult readPlanMapText(
    const QByteArray &text, const QString &path, const QStringList &names)
{
    PlanMapReadResult out;
    auto map = std::make_shared<PlanMap>();
    map->path = path;
    int line = 0;
    const auto fail = [&](int column, const QString &message) {
        out.diagnostics.append(mapError(path, line, column, message));
    };
    for (qsizetype start = 0; start < text.size();) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        ++line;
        QByteArrayView raw(text.constData() + start, end - start);
        start = end + 1;
        if (raw.endsWith('\r'))
            raw.chop(1);
        // Split on blanks into the words of the line, keeping where each starts.
        QList<QPair<qsizetype, QByteArrayView>> words;
        qsizetype badAt = -1;
        for (qsizetype i = 0; i < raw.size();) {
            if (raw[i] == ' ' || raw[i] == '\t') {
                ++i;
                continue;
            }
            const qsizetype from = i;
            while (i < raw.size() && raw[i] != ' ' && raw[i] != '\t') {
                if (!isValueByte(raw[i]) && badAt < 0)
                    badAt = i;
                ++i;
            }
            words.append({from, raw.sliced(from, i - from)});
        }
        if (words.isEmpty() || words.first().second.startsWith('#'))
            continue;
        if (out.diagnostics.size() >= 20) // the first twenty say what is wrong with the file
            break;
        if (badAt >= 0) {
            fail(int(badAt) + 1,
                QStringLiteral("byte 0x%1 is not allowed in a plan map: values are printable "
                               "ASCII without spaces (an API key, a client id)")
                    .arg(uchar(raw[badAt]), 2, 16, QLatin1Char('0')));
            continue;
        }
        if (words.size() != 2) {
            fail(int(words.first().first) + 1,
                QStringLiteral("a plan map line is `value plan` (e.g. `k-93f2 pro`), found %1 "
                               "word%2")
                    .arg(words.size())
                    .arg(words.size() == 1 ? QString() : QStringLiteral("s")));
            continue;
        }
        const QString value = QString::fromLatin1(words[0].second);
        const QString plan = QString::fromLatin1(words[1].second);
        if (value.size() > PlanMap::kMaxValueLength) {
            fail(int(words[0].first) + 1,
                QStringLiteral("a value of %1 characters; at most %2")
                    .arg(value.size())
                    .arg(PlanMap::kMaxValueLength));
            continue;
        }
        const qsizetype planIndex = names.indexOf(plan);
        if (planIndex < 0) {
            fail(int(words[1].first) + 1,
                QStringLiteral("'%1' is not a plan of this policy (plans.names: %2)")
                    .arg(plan, names.join(QStringLiteral(", "))));
            continue;
        }
        if (map->entries.size() >= PlanMap::kMaxEntries) {
            fail(1,
                QStringLiteral("more than %1 entries: keep a plan map to what the gateway "
                               "loads at once")
                    .arg(PlanMap::kMaxEntries));
            break;
        }
        if (!map->table.insert(value.toStdString(), limiter::PlanTable::Plan(planIndex))) {
            const auto first = std::find_if(map->entries.cbegin(), map->entries.cend(),
                [&](const PlanMapEntry &e) { return e.value == value; });
            fail(int(words[0].first) + 1,
                QStringLiteral("'%1' is mapped twice (first at line %2, to '%3'): keep one line "
                               "per value")
                    .arg(value)
                    .arg(first == map->entries.cend() ? 0 : first->line)
                    .arg(first == map->entries.cend() ? QString() : first->plan));
            continue;
        }
        map->entries.append({value, plan, line});
    }
    if (!hasErrors(out.diagnostics))
        out.map = std::move(map);
    return out;
}

PlanMapReadResult readPlanMapFile(const QString &path, const QStringList &names)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        PlanMapReadResult out;
        out.diagnostics.append(mapError(path, 0, 0,
            QStringLiteral("cannot open the plan map: %1 (the path is relative to the policy "
                           "file)")
                .arg(file.errorString())));
        return out;
    }
    const QByteArray text = file.read(PlanMap::kMaxBytes + 1);
    if (text.size() > PlanMap::kMaxBytes) {
        PlanMapReadResult out;
        out.diagnostics.append(mapError(path, 0, 0,
            QStringLiteral("larger than %1 MiB: is this a plan map?")
                .arg(PlanMap::kMaxBytes / (1024 * 1024))));
        return out;
    }
    return readPlanMapText(text, path, names);
}

QString planMapPath(const QString &policyFile, const QString &mapFile)
{
    if (QDir::isAbsolutePath(mapFile))
        return mapFile;
    return QFileInfo(policyFile).dir().filePath(mapFile);
}

Diagnostics loadPlanMap(Policy &policy, const QString &policyFile)
{
    policy.plans.map.reset();
    if (!policy.plans.mapFile || policy.plans.mapFile->isEmpty() || policy.plans.names.isEmpty())
        return {};
    PlanMapReadResult read
        = readPlanMapFile(planMapPath(policyFile, *policy.plans.mapFile), policy.plans.names);
    policy.plans.map = std::move(read.map);
    return read.diagnostics;
}

std::optional<LimitSpec> specForPlan(const RouteLimit &limit, const QString &plan)
{
    const PlanLimit *own = limit.planLimit(plan);
    if (!own)
        return limit.spec;
    if (own->unlimited)
        return std::nullopt;
    LimitSpec spec = limit.spec;
    for (const LimitField &field : limitFieldTable()) {
        if (!hasLimitValue(own->spec, field))
            continue;
        switch (field.kind) {
        case LimitField::Kind::Count:
            spec.*field.count = own->spec.*field.count;
            break;
        case LimitField::Kind::Rate:
            spec.*field.rate = own->spec.*field.rate;
            break;
        case LimitField::Kind::Duration:
            spec.*field.duration = own->spec.*field.duration;
            break;
        case LimitField::Kind::LeakMode:
            spec.mode = own->spec.mode;
            break;
        case LimitField::Kind::Calendar:
        case LimitField::Kind::TimeZone:
            break; // the limit's own: a plan changes numbers, not the calendar (reader refuses)
        }
    }
    return spec;
}

namespace {

bool sameValue(const LimitSpec &a, const LimitSpec &b, const LimitField &field)
{
    switch (field.kind) {
    case LimitField::Kind::Count:
        return a.*field.count == b.*field.count;
    case LimitField::Kind::Rate:
        return a.*field.rate == b.*field.rate;
    case LimitField::Kind::Duration:
        return a.*field.duration == b.*field.duration;
    case LimitField::Kind::LeakMode:
        return a.mode == b.mode;
    case LimitField::Kind::Calendar:
    case LimitField::Kind::TimeZone:
        return true; // the limit's own, never a plan's
    }
    return true;
}

} // namespace

void setLimitSpec(RouteLimit &limit, LimitSpec spec)
{
    const bool switched = spec.algorithm != limit.spec.algorithm;
    if (switched) {
        for (PlanLimit &own : limit.plans) {
            if (own.unlimited) {
                own.spec.algorithm = spec.algorithm;
                continue;
            }
            const LimitSpec was = *specForPlan(limit, own.plan);
            const LimitSpec now = switchAlgorithm(was, spec.algorithm);
            LimitSpec differs;
            differs.algorithm = spec.algorithm;
            for (const LimitField &field : limitFieldTable()) {
                if (!field.appliesTo(spec.algorithm) || !hasLimitValue(now, field)
                    || sameValue(now, spec, field) || field.kind == LimitField::Kind::Calendar
                    || field.kind == LimitField::Kind::TimeZone)
                    continue;
                switch (field.kind) {
                case LimitField::Kind::Count:
                    differs.*field.count = now.*field.count;
                    break;
                case LimitField::Kind::Rate:
                    differs.*field.rate = now.*field.rate;
                    break;
                case LimitField::Kind::Duration:
                    differs.*field.duration = now.*field.duration;
                    break;
                case LimitField::Kind::LeakMode:
                    differs.mode = now.mode;
                    break;
                default:
                    break;
                }
                differs.fieldOrder << field.name;
            }
            own.spec = differs;
        }
    }
    if (limit.spec.fieldOrder.contains(QStringLiteral("plans")))
        rememberField(spec.fieldOrder, QStringLiteral("plans"));
    limit.spec = std::move(spec);
}

QStringList planFields(const LimitSpec &spec)
{
    const bool calendar = spec.calendar.has_value();
    QStringList numbers;
    for (const QString &f : limitFields(spec.algorithm)) {
        const LimitField *field = limitField(f);
        if (field->kind != LimitField::Kind::Calendar && field->kind != LimitField::Kind::TimeZone
            && !(calendar && f == QLatin1String("window")))
            numbers << f;
    }
    return numbers;
}

QString formatPlanCell(const PlanLimit &own)
{
    if (own.unlimited)
        return QStringLiteral("unlimited");
    QStringList parts;
    for (const QString &name : own.spec.fieldOrder) {
        const LimitField *field = limitField(name);
        if (!field || !hasLimitValue(own.spec, *field))
            continue;
        switch (field->kind) {
        case LimitField::Kind::Count:
            parts << QStringLiteral("%1 %2").arg(name).arg(*(own.spec.*field->count));
            break;
        case LimitField::Kind::Rate:
            parts << QStringLiteral("%1 %2").arg(name, (own.spec.*field->rate)->text);
            break;
        case LimitField::Kind::Duration:
            parts << QStringLiteral("%1 %2").arg(name, (own.spec.*field->duration)->text);
            break;
        case LimitField::Kind::LeakMode:
            parts << QStringLiteral("%1 %2").arg(name, leakModeName(*own.spec.mode));
            break;
        case LimitField::Kind::Calendar:
        case LimitField::Kind::TimeZone:
            break;
        }
    }
    return parts.join(QStringLiteral(", "));
}

Expected<std::optional<PlanLimit>> parsePlanCell(
    const QString &text, const RouteLimit &limit, const QString &plan)
{
    const QString trimmed = text.trimmed();
    if (trimmed.isEmpty() || trimmed == QLatin1String("inherit"))
        return std::optional<PlanLimit>{};
    PlanLimit own;
    own.plan = plan;
    own.spec.algorithm = limit.spec.algorithm;
    if (trimmed == QLatin1String("unlimited")) {
        own.unlimited = true;
        return std::optional<PlanLimit>{own};
    }
    const QStringList numbers = planFields(limit.spec);
    const QString example = QStringLiteral("e.g. `%1 …`, `unlimited`, or empty for the limit's own")
                                .arg(numbers.value(0));
    for (const QString &part : trimmed.split(QLatin1Char(','))) {
        // `name value`, `name: value` or `name=value`.
        static const QRegularExpression pair(
            QStringLiteral("^\\s*([a-z_]+)\\s*[:= ]\\s*(\\S.*?)\\s*$"));
        const QRegularExpressionMatch m = pair.match(part);
        if (!m.hasMatch())
            return QStringLiteral("'%1' is not `field value` (%2)").arg(part.trimmed(), example);
        const QString name = m.captured(1), value = m.captured(2);
        if (!numbers.contains(name))
            return QStringLiteral("a plan of this %1 sets %2, not `%3`")
                .arg(algorithmDisplayName(limit.spec.algorithm), numbers.join(QStringLiteral(", ")),
                    name);
        if (own.spec.fieldOrder.contains(name))
            return QStringLiteral("`%1` is given twice").arg(name);
        const LimitField &field = *limitField(name);
        switch (field.kind) {
        case LimitField::Kind::Count: {
            bool ok = false;
            const qint64 n = value.toLongLong(&ok);
            if (!ok || n < field.min || n > field.max)
                return QStringLiteral("%1 takes a whole number from %2 to %3, not '%4'")
                    .arg(name)
                    .arg(field.min)
                    .arg(field.max)
                    .arg(value);
            own.spec.*field.count = n;
            break;
        }
        case LimitField::Kind::Rate: {
            const auto rate = parseRate(value);
            if (!rate)
                return QStringLiteral("%1: %2").arg(name, rate.error());
            own.spec.*field.rate = RateValue{value, *rate};
            break;
        }
        case LimitField::Kind::Duration: {
            const auto duration = parseDuration(value);
            if (!duration)
                return QStringLiteral("%1: %2").arg(name, duration.error());
            own.spec.*field.duration = DurationValue{value, *duration};
            break;
        }
        case LimitField::Kind::LeakMode:
            if (value != QLatin1String("police") && value != QLatin1String("shape"))
                return QStringLiteral("mode is police or shape, not '%1'").arg(value);
            own.spec.mode = value == QLatin1String("shape") ? limiter::LeakMode::Shape
                                                            : limiter::LeakMode::Police;
            break;
        case LimitField::Kind::Calendar:
        case LimitField::Kind::TimeZone:
            break; // not among a plan's numbers
        }
        own.spec.fieldOrder << name;
    }
    return std::optional<PlanLimit>{own};
}

bool routeVariesByPlan(const Policy &policy, const Route &route)
{
    return !policy.plans.names.isEmpty()
        && std::any_of(route.limits.cbegin(), route.limits.cend(),
            [](const RouteLimit &l) { return l.variesByPlan(); });
}

int requestPlan(const Policy &policy, const RequestFacts &request)
{
    const PlanSettings &plans = policy.plans;
    if (plans.names.isEmpty())
        return -1;
    const int fallback = std::max(0, int(plans.names.indexOf(plans.effectiveDefault())));
    if (!plans.from)
        return fallback;
    QString value;
    switch (plans.from->kind) {
    case KeySelector::Kind::Header:
        value = headerValue(request.headers, plans.from->name);
        break;
    case KeySelector::Kind::Query:
        value = queryValue(request.target, plans.from->name);
        break;
    case KeySelector::Kind::Ip:
        value = request.clientAddress;
        break;
    case KeySelector::Kind::Global:
        return fallback;
    }
    if (value.isEmpty())
        return fallback;
    if (plans.fromMap()) {
        if (!plans.map)
            return fallback;
        const auto plan = plans.map->table.find(value.toStdString());
        return plan == limiter::PlanTable::kNoPlan ? fallback : int(plan);
    }
    const qsizetype named = plans.names.indexOf(value);
    return named < 0 ? fallback : int(named);
}

} // namespace qs
