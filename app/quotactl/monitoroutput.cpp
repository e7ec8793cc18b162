#include "monitoroutput.h"

#include "model/base/terminaltext.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace qs::cli {

namespace {

QString stateName(RespClient::State state)
{
    switch (state) {
    case RespClient::State::Disconnected:
        return QStringLiteral("disconnected");
    case RespClient::State::Connecting:
        return QStringLiteral("connecting");
    case RespClient::State::Connected:
        return QStringLiteral("connected");
    case RespClient::State::AuthenticationFailed:
        return QStringLiteral("authentication_failed");
    case RespClient::State::Unreachable:
        return QStringLiteral("unreachable");
    case RespClient::State::Busy:
        return QStringLiteral("busy");
    case RespClient::State::Loading:
        return QStringLiteral("loading");
    case RespClient::State::TlsError:
        return QStringLiteral("tls_error");
    }
    return {};
}

QJsonValue optionalNumber(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QString timeText(qint64 serverTimeUs)
{
    if (serverTimeUs == 0)
        return QString();
    return QDateTime::fromMSecsSinceEpoch(serverTimeUs / 1000, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString seconds(qint64 ms)
{
    return ms < 10'000 ? QStringLiteral("%1 s").arg(double(ms) / 1000, 0, 'f', 1)
                       : QStringLiteral("%1 s").arg(ms / 1000);
}

} // namespace

QString printableKey(const QByteArray &key)
{
    QString out;
    for (char c : key) {
        const auto b = static_cast<unsigned char>(c);
        if (b >= 0x20 && b < 0x7f && b != '\\')
            out += QLatin1Char(c);
        else
            out += QStringLiteral("\\x%1").arg(b, 2, 16, QLatin1Char('0'));
    }
    return out;
}

QString snapshotJson(const MonitorSnapshot &s)
{
    // Nothing was read in a refresh without a connection: the figures the monitor still holds
    // are the last connection's, and a line repeating them would say they are current.
    const bool read = s.serverTimeUs != 0;
    const auto figure = [read](qint64 v) { return read ? QJsonValue(v) : QJsonValue(); };
    QJsonArray routes, hot, unreadable;
    for (const RouteStatus &r : s.routes) {
        QJsonObject o{{QStringLiteral("id"), r.id}, {QStringLiteral("keys"), figure(r.keys)},
            {QStringLiteral("throttled"), figure(r.throttled)},
            {QStringLiteral("unreadable"), figure(r.unreadable)},
            {QStringLiteral("allowed_per_s"),
                read ? optionalNumber(r.allowedPerSecond) : QJsonValue()},
            {QStringLiteral("denied_per_s"),
                read ? optionalNumber(r.deniedPerSecond) : QJsonValue()}};
        if (!r.problem.isEmpty())
            o.insert(QStringLiteral("problem"), r.problem);
        if (read && !r.plans.isEmpty()) {
            QJsonObject plans;
            for (const PlanRate &p : r.plans)
                plans.insert(p.plan,
                    QJsonObject{{QStringLiteral("allowed_per_s"), p.allowed},
                        {QStringLiteral("denied_per_s"), p.denied}});
            o.insert(QStringLiteral("plans"), plans);
        }
        routes.append(o);
    }
    for (const HotKey &h : read ? s.hotKeys : QList<HotKey>())
        hot.append(QJsonObject{{QStringLiteral("route"), h.route},
            {QStringLiteral("key"), printableKey(h.key)},
            {QStringLiteral("remaining"), h.quota.remaining},
            {QStringLiteral("limit"), h.quota.limit},
            {QStringLiteral("reset_after_ms"), h.quota.resetAfterMs},
            {QStringLiteral("ttl_ms"),
                h.quota.ttlMs == KeyQuota::kTtlNotRead ? QJsonValue() : QJsonValue(h.quota.ttlMs)},
            {QStringLiteral("throttled"), h.quota.throttled},
            {QStringLiteral("read_at"), timeText(h.readAtUs)}});
    for (const UnreadableKey &u : read ? s.unreadable : QList<UnreadableKey>())
        unreadable.append(QJsonObject{{QStringLiteral("route"), u.route},
            {QStringLiteral("key"), printableKey(u.key)}, {QStringLiteral("why"), u.why}});
    QJsonArray nodes;
    for (const NodeStatus &n : s.nodes)
        nodes.append(QJsonObject{{QStringLiteral("address"), n.address},
            {QStringLiteral("replica"), n.replica}, {QStringLiteral("state"), stateName(n.state)},
            {QStringLiteral("state_text"), n.stateText}, {QStringLiteral("keys"), n.keys}});
    QJsonObject o{{QStringLiteral("time"), timeText(s.serverTimeUs)},
        {QStringLiteral("state"), stateName(s.state)}, {QStringLiteral("state_text"), s.stateText},
        {QStringLiteral("routes"), routes}, {QStringLiteral("hot_keys"), hot},
        {QStringLiteral("unreadable"), unreadable}, {QStringLiteral("keys_read"), s.keysRead},
        {QStringLiteral("commands_sent"), qint64(s.commandsSent)},
        {QStringLiteral("scan_complete"), s.scanComplete},
        {QStringLiteral("error"), s.lastError.isEmpty() ? QJsonValue() : QJsonValue(s.lastError)}};
    if (!nodes.isEmpty()) // a cluster
        o.insert(QStringLiteral("nodes"), nodes);
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)) + QLatin1Char('\n');
}

QString snapshotText(const MonitorSnapshot &s, bool clearScreen)
{
    const QLocale c = QLocale::c();
    QString out;
    if (clearScreen)
        out += QStringLiteral("\x1b[H\x1b[2J");
    qint64 keys = 0;
    for (const RouteStatus &r : s.routes)
        keys += r.keys;
    out += QStringLiteral("%1  %2  ·  %3 keys%4  ·  %5 read this refresh\n")
               .arg(timeText(s.serverTimeUs).isEmpty() ? QStringLiteral("--")
                                                       : timeText(s.serverTimeUs),
                   s.stateText, c.toString(keys),
                   s.scanComplete ? QString() : QStringLiteral(" (still scanning)"),
                   c.toString(s.keysRead));
    out += QStringLiteral("%1 %2 %3 %4 %5\n")
               .arg(QStringLiteral("ROUTE"), -24)
               .arg(QStringLiteral("KEYS"), 10)
               .arg(QStringLiteral("THROTTLED"), 10)
               .arg(QStringLiteral("ALLOWED/S"), 10)
               .arg(QStringLiteral("DENIED/S"), 10);
    const auto rate = [](const std::optional<double> &v) {
        return v ? QString::number(*v, 'f', 0) : QStringLiteral("-");
    };
    if (s.serverTimeUs == 0) // not connected: the figures held are the last connection's
        return out + QStringLiteral("no figures while %1\n\n").arg(s.stateText);
    for (const RouteStatus &r : s.routes) {
        if (!r.problem.isEmpty()) {
            out += QStringLiteral("%1 not monitored: %2\n").arg(r.id, -24).arg(r.problem);
            continue;
        }
        out += QStringLiteral("%1 %2 %3 %4 %5%6\n")
                   .arg(r.id, -24)
                   .arg(c.toString(r.keys), 10)
                   .arg(c.toString(r.throttled), 10)
                   .arg(rate(r.allowedPerSecond), 10)
                   .arg(rate(r.deniedPerSecond), 10)
                   .arg(r.unreadable ? QStringLiteral("  (%1 unreadable)").arg(r.unreadable)
                                     : QString());
    }
    bool plans = false;
    for (const RouteStatus &r : s.routes)
        for (const PlanRate &p : r.plans) {
            if (!plans)
                out += QStringLiteral("\n%1 %2 %3\n")
                           .arg(QStringLiteral("BY PLAN"), -24)
                           .arg(QStringLiteral("ALLOWED/S"), 21)
                           .arg(QStringLiteral("DENIED/S"), 10);
            plans = true;
            // The route's id without the limit: the counts are per request, not per limit.
            const QString route
                = r.id.section(QLatin1Char('/'), 0, 0).section(QLatin1Char('@'), 0, 0);
            out += QStringLiteral("%1 %2 %3\n")
                       .arg(route + QLatin1Char('@') + p.plan, -24)
                       .arg(QString::number(p.allowed, 'f', 0), 21)
                       .arg(QString::number(p.denied, 'f', 0), 10);
        }
    if (!s.hotKeys.isEmpty()) {
        out += QStringLiteral("\nHOTTEST KEYS\n%1 %2 %3 %4\n")
                   .arg(QStringLiteral("ROUTE"), -16)
                   .arg(QStringLiteral("KEY"), -40)
                   .arg(QStringLiteral("LEFT/LIMIT"), 12)
                   .arg(QStringLiteral("RESET IN"), 10);
        for (const HotKey &h : s.hotKeys)
            out += QStringLiteral("%1 %2 %3 %4%5\n")
                       .arg(h.route, -16)
                       .arg(printableKey(h.key), -40)
                       .arg(QStringLiteral("%1/%2").arg(h.quota.remaining).arg(h.quota.limit), 12)
                       .arg(seconds(h.quota.resetAfterMs), 10)
                       .arg(h.quota.throttled ? QStringLiteral("  throttled") : QString());
    }
    if (!s.nodes.isEmpty()) {
        out += QStringLiteral("\nNODES\n");
        for (const NodeStatus &n : s.nodes)
            out += QStringLiteral("%1 %2 %3 keys  %4\n")
                       .arg(n.address, -24)
                       .arg(n.replica ? QStringLiteral("replica") : QStringLiteral("master"), -8)
                       .arg(c.toString(n.keys), 10)
                       .arg(n.stateText);
    }
    for (const UnreadableKey &u : s.unreadable)
        out += QStringLiteral("unreadable: %1 (%2): %3\n")
                   .arg(printableKey(u.key), u.route, terminalSafe(u.why));
    if (!s.lastError.isEmpty())
        out += QStringLiteral("error: %1\n").arg(terminalSafe(s.lastError));
    return out + QLatin1Char('\n');
}

QString surveyJson(const SurveyReport &r)
{
    QJsonArray families;
    for (const KeyFamily &f : r.families)
        families.append(QJsonObject{{QStringLiteral("pattern"), printableKey(f.pattern)},
            {QStringLiteral("count"), f.count}, {QStringLiteral("type"), QString::fromUtf8(f.type)},
            {QStringLiteral("example"), printableKey(f.example)},
            {QStringLiteral("preset"), f.preset.isEmpty() ? QJsonValue() : QJsonValue(f.preset)},
            {QStringLiteral("note"), f.note}, {QStringLiteral("layout"), f.layoutYaml}});
    const QJsonObject o{{QStringLiteral("keys_looked_at"), r.keysLookedAt},
        {QStringLiteral("whole_keyspace"), r.wholeKeyspace},
        {QStringLiteral("families"), families}};
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)) + QLatin1Char('\n');
}

QString surveyText(const SurveyReport &r)
{
    const QLocale c = QLocale::c();
    QString out
        = QStringLiteral("%1 keys looked at%2\n\n")
              .arg(c.toString(r.keysLookedAt),
                  r.wholeKeyspace ? QStringLiteral(" (the whole keyspace)")
                                  : QStringLiteral(" (a sample: raise --max-keys for more)"));
    QString layouts;
    for (const KeyFamily &f : r.families) {
        out += QStringLiteral("%1 keys like %2 (%3): %4%5\n")
                   .arg(c.toString(f.count), 8)
                   .arg(printableKey(f.pattern), QString::fromUtf8(f.type),
                       f.preset.isEmpty() ? QStringLiteral("no preset") : f.preset,
                       f.note.isEmpty() ? QString() : QStringLiteral(" — ") + f.note);
        out += QStringLiteral("         e.g. %1\n").arg(printableKey(f.example));
        if (!f.layoutYaml.isEmpty())
            layouts += f.layoutYaml;
    }
    if (!layouts.isEmpty())
        out += QStringLiteral("\nTo monitor them, add to the policy (replace ROUTE_ID):\nredis:\n  "
                              "layouts:\n")
            + QStringLiteral("    ")
            + layouts.trimmed().replace(QLatin1Char('\n'), QStringLiteral("\n    "))
            + QLatin1Char('\n');
    return out;
}

} // namespace qs::cli
