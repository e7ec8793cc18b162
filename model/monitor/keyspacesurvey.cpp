#include "model/monitor/keyspacesurvey.h"

#include "limiter/redis/keylayout.h"

#include "model/monitor/layoutdecoder.h"
#include "model/policy/layoutpreset.h"

#include <QRegularExpression>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace qs {

namespace {

QByteArray group(const QRegularExpressionMatch &m, int n)
{
    return m.captured(n).toUtf8();
}

// A key segment that varies between clients: mostly digits (an id, an address, a time) or long
// (a token, a hash). "v2" or "app1" are fixed names.
bool variable(const QByteArray &segment)
{
    const auto digits = std::count_if(
        segment.cbegin(), segment.cend(), [](char c) { return c >= '0' && c <= '9'; });
    return segment.size() > 24 || digits * 2 > segment.size();
}

// Unknown keys: keep the leading segments up to the first variable one, then `*`.
QByteArray genericPattern(const QByteArray &key)
{
    const char separator = key.contains(':') ? ':' : key.contains('/') ? '/' : '\0';
    if (!separator)
        return variable(key) ? QByteArray("*") : key;
    const QList<QByteArray> parts = key.split(separator);
    QByteArray pattern;
    for (const QByteArray &p : parts) {
        if (variable(p) || &p == &parts.last())
            return pattern + '*';
        pattern += p + separator;
    }
    return pattern + '*';
}

// envoyproxy/ratelimit: `<domain>_<key>_<value>…_<window start>`, a 10-digit epoch second.
std::optional<QByteArray> envoyPattern(const QByteArray &key)
{
    const QList<QByteArray> parts = key.split('_');
    if (parts.size() < 4)
        return std::nullopt;
    bool ok = false;
    const qint64 start = parts.last().toLongLong(&ok);
    constexpr qint64 kFirstTenDigitSecond = 1'000'000'000; // 2001-09-09
    if (!ok || parts.last().size() != 10 || start < kFirstTenDigitSecond)
        return std::nullopt;
    QByteArray head;
    for (qsizetype i = 0; i + 2 < parts.size(); ++i)
        head += parts[i] + '_';
    return head + '*';
}

// python-limits: LIMITER/<identifiers…>/<amount>/<multiples>/<granularity>, 3.7+ with LIMITS:.
struct PythonLimitsName {
    QByteArray head; // LIMITER or LIMITS:LIMITER
    QList<QByteArray> ids; // the identifiers: Flask-Limiter's key function's value, the scope…
    QByteArray limit; // amount/multiples/granularity
};

std::optional<PythonLimitsName> pythonLimitsName(const QByteArray &key)
{
    static const QRegularExpression name(QStringLiteral(
        "^((?:LIMITS:)?LIMITER)/(.+)/(\\d+/\\d+/(?:second|minute|hour|day|month|year))$"));
    const auto m = name.match(QString::fromUtf8(key));
    if (!m.hasMatch())
        return std::nullopt;
    return PythonLimitsName{group(m, 1), group(m, 2).split('/'), group(m, 3)};
}

// Which identifier is the client's. Flask-Limiter writes `<key function>/<scope>`, slowapi and
// hand-written code other orders: the position whose values look like clients (addresses,
// ids: mostly digits, or long) and vary most, else the one that varies most.
qsizetype clientPosition(const std::vector<PythonLimitsName> &names)
{
    const qsizetype n = names.front().ids.size();
    qsizetype best = 0, bestDistinct = -1;
    bool bestLooksVariable = false;
    for (qsizetype p = 0; p < n; ++p) {
        QSet<QByteArray> values;
        qsizetype variables = 0;
        for (const PythonLimitsName &name : names) {
            values.insert(name.ids[p]);
            variables += variable(name.ids[p]) ? 1 : 0;
        }
        const bool looksVariable = variables * 2 > qsizetype(names.size());
        const qsizetype distinct = values.size();
        if ((looksVariable && !bestLooksVariable)
            || (looksVariable == bestLooksVariable && distinct > bestDistinct)) {
            best = p;
            bestDistinct = distinct;
            bestLooksVariable = looksVariable;
        }
    }
    return best;
}

} // namespace

KeyShape shapeOfKey(const QByteArray &key, const QByteArray &qsPrefix)
{
    const QString k = QString::fromUtf8(key);
    static const QRegularExpression kong(QStringLiteral(
        "^ratelimit:[0-9a-f-]{36}:[0-9a-f-]{36}:.+:\\d{13}:(second|minute|hour|day|month|year)$"));
    static const QRegularExpression spring(
        QStringLiteral("^request_rate_limiter\\.\\{.+\\}\\.(tokens|timestamp)$"));
    const QRegularExpression own(QStringLiteral("^%1:([A-Za-z0-9][A-Za-z0-9_.-]*):(%2:)?.+$")
                                     .arg(QRegularExpression::escape(QString::fromUtf8(qsPrefix)),
                                         QRegularExpression::escape(QString::fromLatin1(
                                             limiter::keylayout::kMetricsTag.data(),
                                             qsizetype(limiter::keylayout::kMetricsTag.size())))));
    if (auto m = own.match(k); m.hasMatch())
        return {
            qsPrefix + ':' + group(m, 1) + ':' + group(m, 2) + '*', QStringLiteral("quota-studio")};
    if (auto m = kong.match(k); m.hasMatch())
        return {"ratelimit:*:" + group(m, 1), QStringLiteral("kong")};
    if (const auto name = pythonLimitsName(key)) // grouped further by groupPythonLimits()
        return {name->head + "/*/" + name->limit, QStringLiteral("python-limits")};
    if (auto m = spring.match(k); m.hasMatch())
        return {"request_rate_limiter.*." + group(m, 1), QStringLiteral("spring-cloud-gateway")};
    if (key.startsWith("rate:") && key.size() > 5)
        return {"rate:*", QStringLiteral("redis_rate")};
    if (key.startsWith("rl:") && key.size() > 3)
        return {"rl:*", QStringLiteral("express-rate-limit")};
    if (key.startsWith("rlflx:"))
        return {"rlflx:*", QString()};
    if (auto p = envoyPattern(key))
        return {*p, QStringLiteral("envoy-ratelimit")};
    return {genericPattern(key), QString()};
}

KeyspaceSurvey::KeyspaceSurvey(RespClient &client, QObject *parent)
    : QObject(parent), m_client(client)
{
    m_steady.start();
}

void KeyspaceSurvey::run(const Options &options)
{
    m_options = options;
    m_budget = ReadBudget(options.budgetPerSecond);
    m_report = SurveyReport();
    m_families.clear();
    m_pythonLimitsKeys.clear();
    m_pythonLimitsTypes.clear();
    m_cursor = "0";
    m_running = true;
    scanNext();
}

void KeyspaceSurvey::sendBudgeted(const QList<QByteArray> &argv, RespClient::Callback callback)
{
    // A SCAN walks COUNT buckets, each about a read's worth of Redis CPU (docs/monitoring.md):
    // it counts so in the budget.
    const qint64 cost = argv.first() == "SCAN" ? std::max(1, m_options.scanCount) : 1;
    if (m_client.state() != RespClient::State::Connected) {
        if (m_client.state() == RespClient::State::Connecting
            || m_client.state() == RespClient::State::Loading) {
            QTimer::singleShot(50, this, [=, this] { sendBudgeted(argv, callback); });
            return;
        }
        m_report.error = m_client.stateText();
        done();
        return;
    }
    if (m_budget.available(m_steady.nsecsElapsed() / 1000) < cost) {
        QTimer::singleShot(20, this, [=, this] { sendBudgeted(argv, callback); });
        return;
    }
    m_budget.take(cost, m_steady.nsecsElapsed() / 1000);
    m_client.send(argv, std::move(callback));
}

void KeyspaceSurvey::scanNext()
{
    sendBudgeted({"SCAN", m_cursor, "COUNT", QByteArray::number(m_options.scanCount)},
        [this](const RespValue &reply) { onScan(reply); });
}

void KeyspaceSurvey::onScan(const RespValue &reply)
{
    if (!m_running)
        return;
    if (reply.type != RespValue::Type::Array || reply.elements.size() != 2) {
        m_report.error = reply.isError() ? QString::fromUtf8(reply.text) : m_client.stateText();
        done();
        return;
    }
    for (const RespValue &k : reply.elements[1].elements) {
        if (m_report.keysLookedAt >= m_options.maxKeys)
            break;
        ++m_report.keysLookedAt;
        const KeyShape shape = shapeOfKey(k.text, m_options.qsPrefix);
        if (shape.preset == QLatin1String("python-limits")) {
            m_pythonLimitsKeys.push_back(k.text); // grouped once all are in (groupPythonLimits)
            continue;
        }
        KeyFamily &f = m_families[shape.pattern];
        if (f.count++ == 0) {
            f.pattern = shape.pattern;
            f.preset = shape.preset;
            f.example = k.text;
        }
    }
    emit progress(m_report.keysLookedAt);
    m_cursor = reply.elements[0].text;
    m_report.wholeKeyspace = m_cursor == "0";
    if (m_report.wholeKeyspace || m_report.keysLookedAt >= m_options.maxKeys)
        typePythonLimits();
    else
        scanNext();
}

void KeyspaceSurvey::typePythonLimits()
{
    // The same limit on several endpoints, or a fixed-window app beside a moving-window one,
    // share a name's shape: each key's type is asked (fixed: a string, moving: a list), so that
    // each suggested layout reads keys of one kind.
    if (m_pythonLimitsKeys.empty()) {
        inspectFamilies();
        return;
    }
    auto left = std::make_shared<size_t>(m_pythonLimitsKeys.size());
    m_pythonLimitsTypes.assign(m_pythonLimitsKeys.size(), QByteArray());
    for (size_t i = 0; i < m_pythonLimitsKeys.size(); ++i)
        sendBudgeted({"TYPE", m_pythonLimitsKeys[i]}, [this, i, left](const RespValue &r) {
            if (!m_running)
                return;
            m_pythonLimitsTypes[i] = r.text;
            if (--*left == 0) {
                groupPythonLimits();
                inspectFamilies();
            }
        });
}

void KeyspaceSurvey::groupPythonLimits()
{
    // By shape first (prefix, number of identifiers, limit), then by every identifier but the
    // client's, then by type: LIMITER/*/app.search/20/1/minute (list) is one family.
    QHash<QByteArray, std::vector<size_t>> shapes;
    std::vector<PythonLimitsName> names;
    for (size_t i = 0; i < m_pythonLimitsKeys.size(); ++i) {
        names.push_back(*pythonLimitsName(m_pythonLimitsKeys[i]));
        const PythonLimitsName &n = names.back();
        shapes[n.head + '/' + QByteArray::number(n.ids.size()) + '/' + n.limit].push_back(i);
    }
    for (const std::vector<size_t> &members : std::as_const(shapes)) {
        std::vector<PythonLimitsName> of;
        for (size_t i : members)
            of.push_back(names[i]);
        const qsizetype client = clientPosition(of);
        for (size_t i : members) {
            QList<QByteArray> parts = names[i].ids;
            parts[client] = "*";
            const QByteArray pattern = names[i].head + '/' + parts.join('/') + '/' + names[i].limit;
            const QByteArray type = m_pythonLimitsTypes[i];
            if (type == "none")
                continue; // expired since the SCAN
            KeyFamily &f = m_families[pattern + '\0' + type];
            if (f.count++ == 0) {
                f.pattern = pattern;
                f.type = type;
                f.preset = QStringLiteral("python-limits");
                f.example = m_pythonLimitsKeys[i];
            }
        }
    }
}

void KeyspaceSurvey::inspectFamilies()
{
    for (KeyFamily &f : m_families)
        m_report.families.append(f);
    std::sort(m_report.families.begin(), m_report.families.end(),
        [](const KeyFamily &a, const KeyFamily &b) { return a.count > b.count; });
    if (m_report.families.size() > m_options.maxFamilies)
        m_report.families.resize(m_options.maxFamilies);
    if (m_report.families.isEmpty()) {
        done();
        return;
    }
    auto left = std::make_shared<int>(int(m_report.families.size()));
    for (qsizetype i = 0; i < m_report.families.size(); ++i) {
        if (!m_report.families[i].type.isEmpty()) { // typed already (python-limits)
            inspect(m_report.families[i], left);
            continue;
        }
        sendBudgeted({"TYPE", m_report.families[i].example}, [this, i, left](const RespValue &r) {
            if (!m_running)
                return;
            KeyFamily &f = m_report.families[i];
            f.type = r.text;
            inspect(f, left);
        });
    }
}

namespace {

// Offers the family's layout: the entry itself (the GUI adds it to the policy) and the same
// entry as YAML to paste (the CLI prints it).
void offerLayout(KeyFamily &f, QList<QPair<QString, QString>> fields = {},
    std::optional<QString> timeUnit = std::nullopt, std::optional<QString> refill = std::nullopt)
{
    QByteArray key = f.pattern;
    key.replace(key.indexOf('*'), 1, "{key}");
    RedisLayout layout;
    layout.preset = f.preset;
    layout.keyTemplate = QString::fromUtf8(key);
    layout.fields = std::move(fields);
    layout.timeUnit = std::move(timeUnit);
    layout.refill = std::move(refill);
    f.layout = layout;
    f.layoutYaml = layoutYaml(layout);
}

// A time stored by a tutorial hash, by magnitude (now ≈ 1.7e9 s, 1.7e12 ms, 1.7e15 µs).
std::optional<QString> timeUnitOf(double v)
{
    if (v > 1e9 && v < 1e10)
        return QStringLiteral("s");
    if (v > 1e12 && v < 1e13)
        return QStringLiteral("ms");
    if (v > 1e15 && v < 1e16)
        return QStringLiteral("us");
    return std::nullopt;
}

} // namespace

QString layoutYaml(const RedisLayout &layout)
{
    QString yaml = QStringLiteral("- route: %1   # the route whose limit these keys enforce\n")
                       .arg(layout.routeId.isEmpty() ? QStringLiteral("ROUTE_ID") : layout.routeId);
    if (layout.preset)
        yaml += QStringLiteral("  preset: %1\n").arg(*layout.preset);
    yaml += QStringLiteral("  key: \"%1\"\n").arg(layout.keyTemplate);
    if (!layout.fields.isEmpty()) {
        QStringList pairs;
        for (const auto &[ours, theirs] : layout.fields)
            pairs << QStringLiteral("%1: %2").arg(ours, theirs);
        yaml += QStringLiteral("  fields: { %1 }\n").arg(pairs.join(QStringLiteral(", ")));
    }
    if (layout.timeUnit)
        yaml += QStringLiteral("  time_unit: %1\n").arg(*layout.timeUnit);
    if (layout.refill)
        yaml += QStringLiteral("  refill: %1\n").arg(*layout.refill);
    return yaml;
}

void KeyspaceSurvey::inspect(KeyFamily &f, std::shared_ptr<int> left)
{
    const auto finishOne = [this, left] {
        if (--*left == 0)
            done();
    };
    if (f.preset == QLatin1String("quota-studio")) {
        f.note = QStringLiteral("Quota Studio's own keys: no layout needed");
    } else if (f.preset == QLatin1String("redis_rate") && f.type == "string") {
        // rate:* is a common name: the value tells, a TAT of about 3e8 s since 2017.
        sendBudgeted({"GET", f.example}, [this, &f, finishOne](const RespValue &r) {
            if (!m_running)
                return;
            const auto v = replyNumber(r);
            if (v && *v > 1e8 && *v < 2e9) {
                f.note = QStringLiteral("a theoretical arrival time in seconds since 2017");
                offerLayout(f);
            } else {
                f.note = QStringLiteral("named like redis_rate, but the value is not its arrival "
                                        "time");
                f.preset.clear();
            }
            finishOne();
        });
        return;
    } else if (f.preset.isEmpty() && f.type == "hash") {
        sendBudgeted({"HGETALL", f.example}, [this, &f, finishOne](const RespValue &r) {
            if (!m_running)
                return;
            QString timeField;
            std::optional<QString> unit;
            double time = 0;
            bool tokens = false;
            for (qsizetype i = 0; i + 1 < r.elements.size(); i += 2) {
                const QByteArray name = r.elements[i].text;
                tokens = tokens || name == "tokens";
                if (const auto v = replyNumber(r.elements[i + 1]); v && !unit && name != "tokens") {
                    unit = timeUnitOf(*v);
                    if (unit) {
                        timeField = QString::fromUtf8(name);
                        time = *v;
                    }
                }
            }
            if (tokens && unit) {
                f.preset = QStringLiteral("tutorial-hash");
                // Whole seconds: the script is handed `int(time.time())` and refills by whole
                // seconds; a fractional time refills continuously. Finer units are continuous
                // for any purpose, and their refill model is left unset.
                std::optional<QString> refill;
                if (*unit == QLatin1String("s"))
                    refill = time == std::floor(time) ? QStringLiteral("per_unit")
                                                      : QStringLiteral("continuous");
                f.note = QStringLiteral("a hash of tokens and %1 (%2%3)")
                             .arg(timeField, *unit,
                                 refill == QLatin1String("per_unit")
                                     ? QStringLiteral(", whole seconds: refilled by the second")
                                     : QString());
                offerLayout(f,
                    {{QStringLiteral("tokens"), QStringLiteral("tokens")},
                        {QStringLiteral("updated_at"), timeField}},
                    unit, refill);
            } else {
                f.note = QStringLiteral("a hash without a token count and a time");
            }
            finishOne();
        });
        return;
    } else if (f.preset == QLatin1String("python-limits")) {
        // The type says the strategy, and the route's limit must use its algorithm.
        if (f.type == "string" || f.type == "list") {
            f.note = f.type == "string"
                ? QStringLiteral("the Python limits library, fixed window: give the route a "
                                 "fixed_window limit (the amount and window come from the key)")
                : QStringLiteral("the Python limits library, moving window: give the route a "
                                 "sliding_window_log limit (the amount and window come from the "
                                 "key)");
            offerLayout(f);
        } else {
            f.note = QStringLiteral("named like the Python limits library, but a %1")
                         .arg(QString::fromUtf8(f.type));
            f.preset.clear();
        }
    } else if (!f.preset.isEmpty()) {
        f.note = layoutPreset(f.preset) ? layoutPreset(f.preset)->summary : QString();
        offerLayout(f);
    } else if (f.pattern == "rlflx:*") {
        f.note = QStringLiteral("rate-limiter-flexible (no preset yet)");
    }
    finishOne();
}

void KeyspaceSurvey::done()
{
    if (!m_running)
        return;
    m_running = false;
    emit finished(m_report);
}

} // namespace qs
