#include "model/export/exportreport.h"

#include "model/policy/plans.h"

#include "limiter/algorithms/admissionbound.h"
#include "model/policy/limitconversion.h"
#include "model/policy/ratesyntax.h"

#include <algorithm>

namespace qs {

void ExportReport::note(
    Diagnostic::Severity severity, qsizetype route, const QString &field, const QString &message)
{
    const QString path = routePath(route, field);
    const auto found
        = m_policy.locations.find(path); // the route's own place when the field has none
    const SourceLocation at = found ? *found : m_policy.locations.value(routePath(route));
    m_diagnostics.append(Diagnostic{severity, QString(), at.line, at.column, path, message, route,
        m_target, m_policy.routes[route].id});
}

void ExportReport::notePolicy(
    Diagnostic::Severity severity, const QString &field, const QString &message)
{
    const SourceLocation at = m_policy.locations.value(field);
    m_diagnostics.append(
        Diagnostic{severity, QString(), at.line, at.column, field, message, -1, m_target, {}});
}

std::optional<PathPattern> ExportReport::pathPattern(qsizetype route)
{
    auto parsed = PathPattern::parse(m_policy.routes[route].path);
    if (!parsed) {
        note(Diagnostic::Severity::Error, route, QStringLiteral(".match.path"), parsed.error());
        return std::nullopt;
    }
    // Defence in depth: whatever PathPattern::parse lets through, no exporter writes a path
    // that could be read as syntax in any target's file (a quote, a space, a control, `;`, `#`,
    // `$` other than the regex anchor, a brace or a backtick).
    const PathPattern pattern = *std::move(parsed);
    const auto configSafe = [](const QString &regex) {
        if (regex.size() < 2 || !regex.startsWith(QLatin1Char('^'))
            || !regex.endsWith(QLatin1Char('$')))
            return false;
        for (qsizetype i = 1; i + 1 < regex.size(); ++i) {
            const char16_t u = regex[i].unicode();
            const bool alnum
                = (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
            if (!alnum && !QStringView(u"._~:@!+,=/%^\\()?|[]*-").contains(regex[i]))
                return false;
        }
        return true;
    };
    if (!configSafe(pattern.toRegex())) {
        note(Diagnostic::Severity::Error, route, QStringLiteral(".match.path"),
            QStringLiteral("path '%1' holds characters this target's configuration could read as "
                           "syntax; it is not exported")
                .arg(commentSafe(m_policy.routes[route].path)));
        return std::nullopt;
    }
    return pattern;
}

std::optional<limiter::AlgorithmConfig> ExportReport::algorithmConfig(qsizetype route)
{
    const Route &r = m_policy.routes[route];
    if (r.hasSeveralLimits() && !m_severalLimits) {
        QStringList names;
        for (const RouteLimit &l : r.limits)
            names << l.name;
        note(Diagnostic::Severity::Error, route, QStringLiteral(".limits"),
            QStringLiteral("%1 limits (%2); the %3 export writes one limit per route so far: "
                           "keep one limit for this target")
                .arg(r.limits.size())
                .arg(commentSafe(names.join(QStringLiteral(", "))), m_target));
        return std::nullopt;
    }
    return algorithmConfig(route, 0);
}

std::optional<limiter::AlgorithmConfig> ExportReport::algorithmConfig(
    qsizetype route, qsizetype limit)
{
    const Route &r = m_policy.routes[route];
    const auto converted = toAlgorithmConfig(r.limits[limit].spec);
    if (!converted) {
        note(Diagnostic::Severity::Error, route, QLatin1Char('.') + r.limitPath(limit),
            converted.error().message);
        return std::nullopt;
    }
    if (const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&*converted);
        fixed && fixed->calendar && !isNativeCalendar(*converted))
        noteCalendar(route, limit, *fixed);
    const RouteLimit &l = r.limits[limit];
    if (!m_plans && l.variesByPlan() && !m_policy.plans.names.isEmpty()) {
        QStringList plans;
        for (const PlanLimit &p : l.plans)
            plans << commentSafe(p.plan);
        note(Diagnostic::Severity::Warning, route,
            QLatin1Char('.') + r.limitPath(limit) + QStringLiteral(".plans"),
            QStringLiteral("%1 has numbers of its own for plans %2; the %3 export does not tell "
                           "plans apart yet: every client gets the limit's own numbers (%4)")
                .arg(r.hasSeveralLimits() ? QStringLiteral("limit '%1'").arg(commentSafe(l.name))
                                          : QStringLiteral("the limit"),
                    plans.join(QStringLiteral(", ")), m_displayName,
                    commentSafe(describeLimit(l.spec))));
    }
    return *converted;
}

std::optional<limiter::AlgorithmConfig> ExportReport::planConfig(
    qsizetype route, qsizetype limit, const QString &plan)
{
    const Route &r = m_policy.routes[route];
    const auto spec = specForPlan(r.limits[limit], plan);
    const QString at = QLatin1Char('.') + r.limitPath(limit) + QStringLiteral(".plans.") + plan;
    if (!spec) {
        note(Diagnostic::Severity::Error, route, at, QStringLiteral("unlimited on this plan"));
        return std::nullopt;
    }
    const auto converted = toAlgorithmConfig(*spec);
    if (!converted) {
        note(Diagnostic::Severity::Error, route, at, converted.error().message);
        return std::nullopt;
    }
    // A calendar the target lacks is said once, with the first limited plan's numbers.
    const QStringList &names = m_policy.plans.names;
    const auto firstLimited = std::find_if(names.begin(), names.end(),
        [&](const QString &p) { return specForPlan(r.limits[limit], p).has_value(); });
    if (const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&*converted); fixed
        && fixed->calendar && !isNativeCalendar(*converted) && firstLimited != names.end()
        && *firstLimited == plan)
        noteCalendar(route, limit, *fixed);
    return *converted;
}

bool ExportReport::isNativeCalendar(const limiter::AlgorithmConfig &config) const
{
    const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&config);
    const limiter::CalendarWindows *zoned
        = fixed && fixed->calendar ? fixed->calendar->zoned() : nullptr;
    if (zoned && m_calendarEverywhere)
        return true;
    return zoned && zoned->zone().name() == "UTC"
        && std::find(m_nativeCalendar.begin(), m_nativeCalendar.end(), zoned->unit())
        != m_nativeCalendar.end();
}

// What a calendar quota becomes where the gateway has no such window: the worst case within
// one calendar window, in numbers.
void ExportReport::noteCalendar(
    qsizetype route, qsizetype limit, const limiter::FixedWindowConfig &config)
{
    const limiter::CalendarWindows &calendar = *config.calendar->zoned();
    const QString zone = QString::fromStdString(calendar.zone().name());
    const QString unit = QString::fromLatin1(limiter::calendarUnitName(calendar.unit()).data());
    static const char *const kReset[]
        = {"local midnight", "Monday 00:00", "00:00 on the 1st", "00:00 on January 1st"};
    const bool nativeInUtc
        = std::find(m_nativeCalendar.begin(), m_nativeCalendar.end(), calendar.unit())
        != m_nativeCalendar.end();
    const limiter::FixedWindowConfig nominal{{config.limit, config.window}};
    const std::int64_t most
        = limiter::admissionBound(nominal, limiter::longestLength(calendar.unit()));
    const QString at = QLatin1Char('.') + m_policy.routes[route].limitPath(limit);
    if (nativeInUtc) {
        note(Diagnostic::Severity::Warning, route, at + QStringLiteral(".time_zone"),
            QStringLiteral("%1 counts calendar %2s in UTC only: the quota resets at %3 UTC, "
                           "not in %4, so a %2 of %4 overlaps two of %1's and a client may get "
                           "up to %5 within it (designed: %6)")
                .arg(m_displayName, unit, QLatin1String(kReset[int(calendar.unit())]), zone)
                .arg(2 * config.limit)
                .arg(config.limit));
        return;
    }
    note(Diagnostic::Severity::Warning, route, at + QStringLiteral(".calendar"),
        QStringLiteral("%1 has no calendar windows: the calendar %2 (%3, %4) is treated as %5 "
                       "per %6, counted from the gateway's own period starts, not from %3; in "
                       "the worst case (fixed periods of %6) one calendar %2 admits up to %7 "
                       "(designed: %5)")
            .arg(m_displayName, unit, QLatin1String(kReset[int(calendar.unit())]), zone)
            .arg(config.limit)
            .arg(formatDuration(config.window))
            .arg(most));
}

QString ExportReport::uniqueName(
    const QString &prefix, const QString &id, const QRegularExpression &disallowed, QChar filler)
{
    QString name = prefix + QString(id).replace(disallowed, QString(filler));
    while (m_names.contains(name))
        name += filler;
    m_names.insert(name);
    return name;
}

QString ExportReport::commentSafe(const QString &text)
{
    QString out;
    for (const QChar c : text)
        out += c.isPrint() ? c : QLatin1Char('?');
    return out;
}

} // namespace qs
