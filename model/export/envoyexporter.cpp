#include "model/export/envoyexporter.h"
#include "model/policy/plans.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"
#include "model/export/limitshape.h"
#include "model/policy/keyselectorsyntax.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include <map>

#include "model/base/yamlemitter.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace qs {

namespace {

constexpr const char *kLocalFilter = "envoy.filters.http.local_ratelimit";
constexpr const char *kLocalType
    = "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit";
constexpr limiter::Micros kMinFillInterval = 50'000; // Envoy refuses fill intervals below 50 ms

// One part of a client key as Envoy's rate_limits actions produce it.
struct KeyPart {
    KeySelector::Kind kind;
    QString header; // lower case, for request_headers
    QString descriptorKey;
};

// A token bucket in Envoy's terms: max_tokens, tokens_per_fill every fill_interval.
struct LocalBucket {
    qint64 maxTokens = 0, tokensPerFill = 0;
    limiter::Micros fillInterval = 0;
};

// One limit of a route: a descriptor for the rate limit service, and (a route's only limit)
// the route's local bucket.
// A planned limit's numbers for one value of the `qs_plan` descriptor entry: a plan's name (plan
// in a header) or a key of the plan map; unset: unlimited.
struct PlanRate {
    QString value;
    std::optional<UnitRate> rate;
};

struct EnvoyLimit {
    QString name; // empty: the route's only limit, whose descriptor is the route's
    QList<KeyPart> keys;
    LocalBucket bucket;
    UnitRate unitRate;
    bool shadow = false;
    // Numbers that differ by plan: per value of qs_plan, and for any other value or none (the
    // default plan's, in unitRate, or unlimited).
    bool planned = false;
    std::vector<PlanRate> planRates;
    bool fallbackUnlimited = false;
};

struct EnvoyRoute {
    qsizetype index = 0;
    QString name; // [A-Za-z0-9_]
    QString routeId;
    PathPattern pattern;
    QString methodsRegex; // empty: any method
    std::vector<EnvoyLimit> limits;
    bool local() const { return limits.size() == 1 && limits.front().name.isEmpty(); }
};

// Proto3 JSON Duration: seconds with a fraction, "0.500s".
std::string protoDuration(limiter::Micros micros)
{
    QString text = QStringLiteral("%1.%2")
                       .arg(micros / limiter::kMicrosPerSecond)
                       .arg(micros % limiter::kMicrosPerSecond, 6, 10, QLatin1Char('0'));
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(QLatin1Char('.')))
        text.chop(1);
    return (text + QLatin1Char('s')).toStdString();
}

void emitPercent(yaml::Emitter &out, const char *field, const QString &runtimeKey, int percent)
{
    out << yaml::Key << field << yaml::Value << yaml::BeginMap;
    out << yaml::Key << "runtime_key" << yaml::Value << runtimeKey.toStdString();
    out << yaml::Key << "default_value" << yaml::Value << yaml::Flow << yaml::BeginMap << yaml::Key
        << "numerator" << yaml::Value << percent << yaml::Key << "denominator" << yaml::Value
        << "HUNDRED" << yaml::EndMap;
    out << yaml::EndMap;
}

void emitSocketAddress(yaml::Emitter &out, int port)
{
    out << yaml::Key << "socket_address" << yaml::Value << yaml::Flow << yaml::BeginMap << yaml::Key
        << "address" << yaml::Value << "127.0.0.1" << yaml::Key << "port_value" << yaml::Value
        << port << yaml::EndMap;
}

void emitTypedConfig(yaml::Emitter &out, const char *type)
{
    out << yaml::Key << "typed_config" << yaml::Value << yaml::BeginMap << yaml::Key << "@type"
        << yaml::Value << type;
}

class EnvoyWriter final : public GatewayWriter {
public:
    EnvoyWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.reserve(QStringLiteral("qs_unlimited"));
        // The rate limit service's DAY starts at 00:00 UTC; its WEEK (from Thursday), MONTH
        // (30 days) and YEAR (365 days) are blocks from the epoch (GATEWAY-LIMITS.md).
        m_report.setNativeCalendarUnits({limiter::CalendarUnit::Day});
        m_report.setPlans(); // a qs_plan descriptor entry, per-plan numbers under it
        const PlanSettings &plans = m_policy.plans;
        if (plans.from && plans.from->kind == KeySelector::Kind::Header
            && isValidHeaderName(plans.from->name))
            m_planHeader = plans.from->name.toLower();
    }

private:
    // Envoy takes the first route that matches: most specific first, the policy's own rule.
    void order() override { sortMostSpecificFirst(m_routes); }
    QByteArray write(const QString &file) override
    {
        return file == QLatin1String("envoy.yaml") ? bootstrap() : serviceConfig();
    }

    void prepare(qsizetype i) override
    {
        const Route &r = m_policy.routes[i];
        EnvoyRoute out;
        out.index = i;
        out.routeId = r.id;
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        out.name = m_report.uniqueName(QStringLiteral("qs_"), r.id, unsafe, QLatin1Char('_'));
        const auto pattern = m_report.pathPattern(i);
        if (!pattern)
            return;
        out.pattern = *pattern;
        if (!r.methods.isEmpty())
            out.methodsRegex = QStringLiteral("^(%1)$").arg(r.methods.join(QLatin1Char('|')));
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            const RouteLimit &limit = r.limits[l];
            EnvoyLimit x;
            if (r.hasSeveralLimits())
                x.name = limit.name;
            const bool planned = limit.variesByPlan() && !m_policy.plans.names.isEmpty();
            const bool local = !r.hasSeveralLimits() && !planned; // a route's local bucket
            const QList<KeySelector> keys = m_policy.keyOf(r, limit);
            if (!mapKeys(out.index, x, keys, local))
                return;
            if (keyCanBeMissing(keys))
                // A request_headers action without its header stops the whole descriptor: Envoy
                // does not call the service at all (skip_if_absent would drop only that entry
                // and count such requests under a shorter descriptor nobody configured).
                m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".missing_key"),
                    !local
                        ? QStringLiteral("Envoy does not call the rate limit service for limit "
                                         "'%1' when a request lacks %2 (missing_key: %3 is not "
                                         "followed)")
                              .arg(ExportReport::commentSafe(limit.name), keysText(keys),
                                  missingKeyModeName(m_policy.missingKeyOf(r, limit)))
                        : QStringLiteral("Envoy does not call the rate limit service for a "
                                         "request without %1: only the route's local bucket, "
                                         "shared by all clients, limits it (missing_key: %2 is "
                                         "not followed)")
                              .arg(keysText(keys), missingKeyModeName(m_policy.missingKeyOf(r))));
            if (planned) {
                x.name = limit.name; // the service decides (local_ratelimit has no plans)
                if (!mapPlans(out.index, l, x))
                    return;
                x.shadow = r.modeOf(limit) == RouteMode::Shadow;
                noteCostNotExported(i, l);
                out.limits.push_back(x);
                continue;
            }
            const auto config = r.hasSeveralLimits() ? m_report.algorithmConfig(i, l)
                                                     : m_report.algorithmConfig(i);
            if (!config)
                return;
            if ((!r.hasSeveralLimits() && !mapLocal(out.index, x, *config))
                || !mapService(out.index, l, x, *config))
                return;
            x.shadow = r.modeOf(limit) == RouteMode::Shadow;
            noteCostNotExported(i, l);
            out.limits.push_back(x);
        }
        if (r.hasSeveralLimits())
            noteSeveral(out);
        m_routes.push_back(out);
    }

    // A limit whose numbers differ by plan: the plan's header becomes a `qs_plan` entry of the
    // limit's descriptor (skipped when absent), and the service config holds each plan's
    // numbers under its value — the plan's name, or each key of the plan map — with the
    // default plan's under any other value and without the entry. Only a plan found in a
    // header can be told apart (Envoy's actions read headers and the address).
    bool mapPlans(qsizetype index, qsizetype l, EnvoyLimit &out)
    {
        const Route &r = m_policy.routes[index];
        const RouteLimit &limit = r.limits[l];
        const PlanSettings &plans = m_policy.plans;
        const QString at = QLatin1Char('.') + r.limitPath(l) + QStringLiteral(".plans");
        // Each plan's rate, by plan name; unset: unlimited.
        std::map<QString, std::optional<UnitRate>> rates;
        for (const QString &plan : plans.names) {
            if (!specForPlan(limit, plan)) {
                rates[plan] = std::nullopt;
                continue;
            }
            const auto config = m_report.planConfig(index, l, plan);
            EnvoyLimit probe;
            if (!config || !mapService(index, l, probe, *config))
                return false;
            rates[plan] = probe.unitRate;
        }
        const std::optional<UnitRate> fallback = rates[plans.effectiveDefault()];
        out.fallbackUnlimited = !fallback;
        if (fallback)
            out.unitRate = *fallback;
        if (m_planHeader.isEmpty()) {
            m_report.note(Diagnostic::Severity::Warning, index, at,
                QStringLiteral("Envoy's rate limit actions read a plan from a header only (plans "
                               "from %1): every client gets the default plan's numbers here")
                    .arg(plans.from ? ExportReport::commentSafe(plans.from->toString())
                                    : QStringLiteral("nothing")));
            return true;
        }
        out.planned = true;
        if (!plans.fromMap()) {
            for (const QString &plan : plans.names)
                if (plan != plans.effectiveDefault())
                    out.planRates.push_back({plan, rates[plan]});
            return true;
        }
        if (!plans.map) {
            m_report.notePolicy(Diagnostic::Severity::Error, QStringLiteral("plans.from.map"),
                QStringLiteral("the plan map was not read: export from the policy's file, beside "
                               "its map"));
            return false;
        }
        for (const PlanMapEntry &e : plans.map->entries)
            if (e.plan != plans.effectiveDefault())
                out.planRates.push_back({e.value, rates[e.plan]});
        return true;
    }

    // The rate limit service decides every descriptor of a request and counts each, the ones
    // under their limit included, whichever is over (GATEWAY-LIMITS.md, Envoy): a request one
    // limit denies still takes from the others. And local_ratelimit holds one bucket per route.
    void noteSeveral(const EnvoyRoute &out)
    {
        QStringList figures;
        for (const EnvoyLimit &l : out.limits)
            figures << QStringLiteral("'%1' (%2 per %3)")
                           .arg(ExportReport::commentSafe(l.name))
                           .arg(l.unitRate.perUnit)
                           .arg(l.unitRate.unit);
        m_report.note(Diagnostic::Severity::Warning, out.index, QStringLiteral(".limits"),
            QStringLiteral("one descriptor per limit; the rate limit service counts a request in "
                           "every descriptor, the ones under their limit included, when another "
                           "is over: a request one limit denies still takes from the others (the "
                           "design takes from none), so %1 can each be used up by requests that "
                           "were all denied. local_ratelimit holds one bucket per route: this "
                           "route is limited by the service only")
                .arg(figures.join(QStringLiteral(", "))));
    }

    // `localWarning`: say that the route's local bucket is shared by all clients (a route with
    // several limits has none).
    bool mapKeys(
        qsizetype index, EnvoyLimit &out, const QList<KeySelector> &keys, bool localWarning)
    {
        bool perClient = false;
        for (const KeySelector &k : keys) {
            switch (k.kind) {
            case KeySelector::Kind::Ip:
                out.keys << KeyPart{k.kind, QString(), QStringLiteral("remote_address")};
                perClient = true;
                break;
            case KeySelector::Kind::Header:
                if (!isValidHeaderName(k.name)) {
                    m_report.note(Diagnostic::Severity::Error, index, QStringLiteral(".key"),
                        QStringLiteral("'%1' is not a valid HTTP header name")
                            .arg(ExportReport::commentSafe(k.name)));
                    return false;
                }
                out.keys << KeyPart{
                    k.kind, k.name.toLower(), QStringLiteral("header_") + k.name.toLower()};
                perClient = true;
                break;
            case KeySelector::Kind::Query:
                m_report.note(Diagnostic::Severity::Error, index, QStringLiteral(".key"),
                    QStringLiteral("Envoy's rate limit actions cannot take a query parameter's "
                                   "value as a descriptor; key by a header or the address"));
                return false;
            case KeySelector::Kind::Global:
                break;
            }
        }
        if (perClient && localWarning)
            m_report.note(Diagnostic::Severity::Warning, index, QStringLiteral(".key"),
                QStringLiteral("local_ratelimit keeps one bucket per route and Envoy instance, "
                               "shared by all clients: per-%1 quotas need the rate limit service "
                               "with ratelimit-config.yaml")
                    .arg(keysText(keys)));
        return true;
    }

    static QString keysText(const QList<KeySelector> &keys)
    {
        QStringList parts;
        for (const KeySelector &k : keys)
            parts << ExportReport::commentSafe(k.toString());
        return parts.join(QLatin1Char('+'));
    }

    bool mapLocal(qsizetype index, EnvoyLimit &out, const limiter::AlgorithmConfig &config)
    {
        const LimitShape shape = limitShape(config);
        const QString algorithm
            = QString::fromLatin1(limiter::algorithmName(limiter::algorithmOf(config)).data());
        if (shape.windowed) {
            // A window's worth, refilled at once every window: the closest a bucket gets.
            out.bucket = {shape.count, shape.count, std::max(shape.period, kMinFillInterval)};
            m_report.note(Diagnostic::Severity::Warning, index, QStringLiteral(".limit.algorithm"),
                QStringLiteral("%1 %2/%3 exported as local_ratelimit max_tokens %2 refilled by %2 "
                               "every %3: windows start when Envoy starts, not at the epoch%4")
                    .arg(algorithm)
                    .arg(shape.count)
                    .arg(formatDuration(shape.period))
                    .arg(algorithm == QLatin1String("fixed_window")
                            ? QString()
                            : QStringLiteral("; up to %1 may pass within %2 across a refill")
                                  .arg(2 * shape.count)
                                  .arg(formatDuration(shape.period))));
            return true;
        }
        if (shape.shaping)
            m_report.note(Diagnostic::Severity::Warning, index, QStringLiteral(".limit.mode"),
                QStringLiteral("Envoy does not shape: requests beyond the rate are rejected at "
                               "once instead of delayed (up to %1 would have waited)")
                    .arg(shape.burst - 1));
        // The smallest whole number of tokens whose refill interval is whole microseconds and
        // at least Envoy's 50 ms: one token per interval when the rate allows, which is exact.
        const qint64 step = shape.count / std::gcd(shape.count, shape.period);
        const long double needed
            = std::ceil(static_cast<long double>(kMinFillInterval) * shape.count / shape.period);
        const long double tokens = std::max<long double>(step, std::ceil(needed / step) * step);
        const long double interval = tokens * shape.period / shape.count;
        if (tokens > 1e15 || interval > 1e15) {
            m_report.note(Diagnostic::Severity::Error, index, QStringLiteral(".limit"),
                QStringLiteral("%1 per %2 has no whole-microsecond refill interval Envoy "
                               "accepts; choose a rate whose period divides evenly")
                    .arg(shape.count)
                    .arg(formatDuration(shape.period)));
            return false;
        }
        out.bucket = {shape.burst, qint64(tokens), limiter::Micros(interval)};
        if (out.bucket.tokensPerFill > 1)
            m_report.note(Diagnostic::Severity::Warning, index, QStringLiteral(".limit"),
                QStringLiteral("Envoy refills in steps of at least 50 ms: %1 tokens every %2 s "
                               "instead of one every %3 s (same rate, coarser steps)")
                    .arg(out.bucket.tokensPerFill)
                    .arg(double(out.bucket.fillInterval) / 1e6, 0, 'g', 6)
                    .arg(double(shape.period) / double(shape.count) / 1e6, 0, 'g', 6));
        return true;
    }

    bool mapService(
        qsizetype index, qsizetype l, EnvoyLimit &out, const limiter::AlgorithmConfig &config)
    {
        const QString at = QLatin1Char('.') + m_policy.routes[index].limitPath(l);
        const LimitShape shape = limitShape(config);
        const auto unit = toUnitRate(shape.count, shape.period);
        if (!unit) {
            m_report.note(Diagnostic::Severity::Error, index, at,
                QStringLiteral("the rate limit service counts at most per day; %1 per %2 is "
                               "less than one a day")
                    .arg(shape.count)
                    .arg(formatDuration(shape.period)));
            return false;
        }
        out.unitRate = *unit;
        const bool fixedWindow = limiter::algorithmOf(config) == limiter::Algorithm::FixedWindow;
        if (fixedWindow && unit->sameWindow)
            return true; // the service counts in fixed windows aligned to the clock: exact
        m_report.note(Diagnostic::Severity::Warning, index, at,
            QStringLiteral("rate limit service: %1 per %2 in fixed windows aligned to the clock "
                           "(designed: %3 per %4%5)")
                .arg(unit->perUnit)
                .arg(unit->unit)
                .arg(shape.count)
                .arg(formatDuration(shape.period))
                .arg(shape.windowed ? QString() : QStringLiteral(", %1 at once").arg(shape.burst)));
        return true;
    }

    QString domain() const
    {
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_.-]"));
        const QString d = QString(m_policy.name).replace(unsafe, QStringLiteral("_"));
        return d.isEmpty() ? QStringLiteral("quota_studio") : d;
    }

    static void emitGenericKey(yaml::Emitter &out, const char *key, const QString &value)
    {
        out << yaml::BeginMap << yaml::Key << "generic_key" << yaml::Value << yaml::BeginMap
            << yaml::Key << "descriptor_key" << yaml::Value << key << yaml::Key
            << "descriptor_value" << yaml::Value << yaml::DoubleQuoted << value.toStdString()
            << yaml::EndMap << yaml::EndMap;
    }

    // One rate_limits entry per limit: qs_route (and qs_limit), then the limit's key parts.
    void emitRateLimitActions(yaml::Emitter &out, const EnvoyRoute &r) const
    {
        out << yaml::Key << "rate_limits" << yaml::Value << yaml::BeginSeq;
        for (const EnvoyLimit &l : r.limits) {
            out << yaml::BeginMap;
            out << yaml::Key << "actions" << yaml::Value << yaml::BeginSeq;
            emitGenericKey(out, "qs_route", r.routeId);
            if (!l.name.isEmpty())
                emitGenericKey(out, "qs_limit", l.name);
            if (l.planned)
                // Without the header, the entry is left out: the default plan's descriptor.
                out << yaml::BeginMap << yaml::Key << "request_headers" << yaml::Value
                    << yaml::BeginMap << yaml::Key << "header_name" << yaml::Value
                    << m_planHeader.toStdString() << yaml::Key << "descriptor_key" << yaml::Value
                    << "qs_plan" << yaml::Key << "skip_if_absent" << yaml::Value << true
                    << yaml::EndMap << yaml::EndMap;
            for (const KeyPart &k : l.keys) {
                out << yaml::BeginMap;
                if (k.kind == KeySelector::Kind::Ip)
                    out << yaml::Key << "remote_address" << yaml::Value << yaml::Flow
                        << yaml::BeginMap << yaml::EndMap;
                else
                    out << yaml::Key << "request_headers" << yaml::Value << yaml::BeginMap
                        << yaml::Key << "header_name" << yaml::Value << k.header.toStdString()
                        << yaml::Key << "descriptor_key" << yaml::Value
                        << k.descriptorKey.toStdString() << yaml::EndMap;
                out << yaml::EndMap;
            }
            out << yaml::EndSeq << yaml::EndMap;
        }
        out << yaml::EndSeq;
    }

    void emitLocalLimit(yaml::Emitter &out, const EnvoyRoute &route) const
    {
        if (!route.local())
            return;
        const EnvoyLimit &r = route.limits.front();
        const QString &name = route.name;
        out << yaml::Key << "typed_per_filter_config" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << kLocalFilter << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "@type" << yaml::Value << kLocalType;
        out << yaml::Key << "stat_prefix" << yaml::Value << name.toStdString();
        out << yaml::Key << "token_bucket" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "max_tokens" << yaml::Value << r.bucket.maxTokens;
        out << yaml::Key << "tokens_per_fill" << yaml::Value << r.bucket.tokensPerFill;
        out << yaml::Key << "fill_interval" << yaml::Value << protoDuration(r.bucket.fillInterval);
        out << yaml::EndMap;
        // Both default to 0%: without them the filter neither counts nor rejects.
        emitPercent(out, "filter_enabled", name + QStringLiteral("_enabled"), 100);
        emitPercent(out, "filter_enforced", name + QStringLiteral("_enforced"), r.shadow ? 0 : 100);
        out << yaml::Key << "status" << yaml::Value << yaml::Flow << yaml::BeginMap << yaml::Key
            << "code" << yaml::Value << m_policy.defaults.effectiveStatus() << yaml::EndMap;
        out << yaml::EndMap << yaml::EndMap;
    }

    void emitRoute(yaml::Emitter &out, const EnvoyRoute &r) const
    {
        out << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << r.name.toStdString();
        out << yaml::Key << "match" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "safe_regex" << yaml::Value << yaml::BeginMap << yaml::Key << "regex"
            << yaml::Value << yaml::DoubleQuoted << r.pattern.toRegex().toStdString()
            << yaml::EndMap;
        if (!r.methodsRegex.isEmpty())
            out << yaml::Key << "headers" << yaml::Value << yaml::BeginSeq << yaml::BeginMap
                << yaml::Key << "name" << yaml::Value << yaml::DoubleQuoted << ":method"
                << yaml::Key << "string_match" << yaml::Value << yaml::BeginMap << yaml::Key
                << "safe_regex" << yaml::Value << yaml::BeginMap << yaml::Key << "regex"
                << yaml::Value << yaml::DoubleQuoted << r.methodsRegex.toStdString() << yaml::EndMap
                << yaml::EndMap << yaml::EndMap << yaml::EndSeq;
        out << yaml::EndMap;
        out << yaml::Key << "route" << yaml::Value << yaml::BeginMap << yaml::Key << "cluster"
            << yaml::Value << "qs_backend";
        emitRateLimitActions(out, r);
        out << yaml::EndMap;
        emitLocalLimit(out, r);
        out << yaml::EndMap;
    }

    QByteArray bootstrap() const
    {
        yaml::Emitter out;
        out.reserve(qsizetype(4096 + m_routes.size() * 1800)); // about 1.7 KiB a route
        out << yaml::Comment("Generated by Quota Studio: Envoy v3 static bootstrap");
        out << yaml::BeginMap << yaml::Key << "static_resources" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "listeners" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << "qs_listener";
        out << yaml::Key << "address" << yaml::Value << yaml::BeginMap;
        emitSocketAddress(out, 10000);
        out << yaml::EndMap;
        out << yaml::Key << "filter_chains" << yaml::Value << yaml::BeginSeq << yaml::BeginMap
            << yaml::Key << "filters" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value
            << "envoy.filters.network.http_connection_manager";
        emitTypedConfig(out,
            "type.googleapis.com/"
            "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager");
        out << yaml::Key << "stat_prefix" << yaml::Value << "qs_ingress";
        // Routes match the normalised path, as the policy defines it: without these, //x,
        // /a/../x and %-escapes of letters reach the service past every limit.
        out << yaml::Key << "normalize_path" << yaml::Value << true;
        out << yaml::Key << "merge_slashes" << yaml::Value << true;
        out << yaml::Key << "route_config" << yaml::Value << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << "qs_routes";
        out << yaml::Key << "virtual_hosts" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << "qs";
        out << yaml::Key << "domains" << yaml::Value << yaml::Flow << yaml::BeginSeq << "*"
            << yaml::EndSeq;
        out << yaml::Key << "routes" << yaml::Value << yaml::BeginSeq;
        emitItemsInParallel(out, m_routes.size(),
            [this](yaml::Emitter &to, std::size_t i) { emitRoute(to, m_routes[i]); });
        // Paths no route claims pass unlimited, as they would without Quota Studio.
        out << yaml::BeginMap << yaml::Key << "name" << yaml::Value << "qs_unlimited" << yaml::Key
            << "match" << yaml::Value << yaml::Flow << yaml::BeginMap << yaml::Key << "prefix"
            << yaml::Value << "/" << yaml::EndMap << yaml::Key << "route" << yaml::Value
            << yaml::Flow << yaml::BeginMap << yaml::Key << "cluster" << yaml::Value << "qs_backend"
            << yaml::EndMap << yaml::EndMap;
        out << yaml::EndSeq << yaml::EndMap << yaml::EndSeq << yaml::EndMap; // route_config
        out << yaml::Key << "http_filters" << yaml::Value << yaml::BeginSeq;
        // Without a token_bucket here the filter limits nothing but the routes that configure it.
        out << yaml::BeginMap << yaml::Key << "name" << yaml::Value << kLocalFilter;
        emitTypedConfig(out, kLocalType);
        out << yaml::Key << "stat_prefix" << yaml::Value << "qs_local_ratelimit" << yaml::EndMap
            << yaml::EndMap;
        out << yaml::BeginMap << yaml::Key << "name" << yaml::Value << "envoy.filters.http.router";
        emitTypedConfig(out, "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router");
        out << yaml::EndMap << yaml::EndMap;
        out << yaml::EndSeq; // http_filters
        out << yaml::EndMap << yaml::EndMap; // typed_config, filter
        out << yaml::EndSeq << yaml::EndMap << yaml::EndSeq; // filters, chain, filter_chains
        out << yaml::EndMap << yaml::EndSeq; // listener, listeners
        out << yaml::Key << "clusters" << yaml::Value << yaml::BeginSeq << yaml::BeginMap;
        out << yaml::Key << "name" << yaml::Value << "qs_backend";
        out << yaml::Key << "type" << yaml::Value << "STATIC";
        out << yaml::Key << "load_assignment" << yaml::Value << yaml::BeginMap << yaml::Key
            << "cluster_name" << yaml::Value << "qs_backend" << yaml::Key << "endpoints"
            << yaml::Value << yaml::BeginSeq << yaml::BeginMap << yaml::Key << "lb_endpoints"
            << yaml::Value << yaml::BeginSeq << yaml::BeginMap << yaml::Key << "endpoint"
            << yaml::Value << yaml::BeginMap << yaml::Key << "address" << yaml::Value
            << yaml::BeginMap;
        emitSocketAddress(out, 8081);
        out << yaml::EndMap << yaml::EndMap << yaml::EndMap << yaml::EndSeq << yaml::EndMap
            << yaml::EndSeq << yaml::EndMap;
        out << yaml::EndMap << yaml::EndSeq; // cluster, clusters
        out << yaml::EndMap << yaml::EndMap; // static_resources, document
        return out.takeDocument();
    }

    // `rate_limit:` of a rate, or unlimited.
    static void emitRate(yaml::Emitter &out, const std::optional<UnitRate> &rate, bool shadow)
    {
        if (!rate) {
            out << yaml::Key << "rate_limit" << yaml::Value << yaml::Flow << yaml::BeginMap
                << yaml::Key << "unlimited" << yaml::Value << true << yaml::EndMap;
            return;
        }
        out << yaml::Key << "rate_limit" << yaml::Value << yaml::BeginMap << yaml::Key << "unit"
            << yaml::Value << rate->unit.toStdString() << yaml::Key << "requests_per_unit"
            << yaml::Value << rate->perUnit << yaml::EndMap;
        if (shadow)
            out << yaml::Key << "shadow_mode" << yaml::Value << true;
    }

    // The key parts' levels below the current map, then `rate`.
    static void emitKeysThenRate(
        yaml::Emitter &out, const EnvoyLimit &l, const std::optional<UnitRate> &rate)
    {
        for (const KeyPart &k : l.keys)
            out << yaml::Key << "descriptors" << yaml::Value << yaml::BeginSeq << yaml::BeginMap
                << yaml::Key << "key" << yaml::Value << k.descriptorKey.toStdString();
        emitRate(out, rate, l.shadow);
        for (qsizetype k = 0; k < l.keys.size(); ++k)
            out << yaml::EndMap << yaml::EndSeq;
    }

    // A planned limit's children: a `qs_plan` entry per value with its plan's numbers, one
    // without a value (any other plan: the default's), and the key parts without the entry (no
    // plan header: the default's). A limit keyed by nothing has its default on itself.
    static void emitPlannedTail(yaml::Emitter &out, const EnvoyLimit &l)
    {
        const std::optional<UnitRate> fallback
            = l.fallbackUnlimited ? std::nullopt : std::optional<UnitRate>(l.unitRate);
        if (l.keys.isEmpty())
            emitRate(out, fallback, l.shadow);
        out << yaml::Key << "descriptors" << yaml::Value << yaml::BeginSeq;
        for (const PlanRate &p : l.planRates) {
            out << yaml::BeginMap << yaml::Key << "key" << yaml::Value << "qs_plan" << yaml::Key
                << "value" << yaml::Value << yaml::DoubleQuoted << p.value.toStdString();
            emitKeysThenRate(out, l, p.rate);
            out << yaml::EndMap;
        }
        out << yaml::BeginMap << yaml::Key << "key" << yaml::Value << "qs_plan";
        emitKeysThenRate(out, l, fallback);
        out << yaml::EndMap;
        if (!l.keys.isEmpty()) {
            EnvoyLimit rest = l;
            rest.keys.removeFirst();
            out << yaml::BeginMap << yaml::Key << "key" << yaml::Value
                << l.keys.first().descriptorKey.toStdString();
            emitKeysThenRate(out, rest, fallback);
            out << yaml::EndMap;
        }
        out << yaml::EndSeq;
    }

    // One nesting level per key part, in the order of the limit's actions (a descriptor without
    // a value counts every value on its own), then the limit's numbers.
    static void emitDescriptorTail(yaml::Emitter &out, const EnvoyLimit &l)
    {
        if (l.planned) {
            emitPlannedTail(out, l);
            return;
        }
        if (l.fallbackUnlimited) {
            emitKeysThenRate(out, l, std::nullopt);
            return;
        }
        for (const KeyPart &k : l.keys)
            out << yaml::Key << "descriptors" << yaml::Value << yaml::BeginSeq << yaml::BeginMap
                << yaml::Key << "key" << yaml::Value << k.descriptorKey.toStdString();
        out << yaml::Key << "rate_limit" << yaml::Value << yaml::BeginMap << yaml::Key << "unit"
            << yaml::Value << l.unitRate.unit.toStdString() << yaml::Key << "requests_per_unit"
            << yaml::Value << l.unitRate.perUnit << yaml::EndMap;
        if (l.shadow)
            out << yaml::Key << "shadow_mode" << yaml::Value << true;
        for (qsizetype k = 0; k < l.keys.size(); ++k)
            out << yaml::EndMap << yaml::EndSeq;
    }

    QByteArray serviceConfig() const
    {
        yaml::Emitter out;
        out.reserve(qsizetype(1024 + m_routes.size() * 200)); // about 160 bytes a route
        out << yaml::Comment("Generated by Quota Studio: envoyproxy/ratelimit service config");
        out << yaml::BeginMap << yaml::Key << "domain" << yaml::Value << domain().toStdString();
        out << yaml::Key << "descriptors" << yaml::Value << yaml::BeginSeq;
        for (const EnvoyRoute &r : m_routes) {
            out << yaml::BeginMap << yaml::Key << "key" << yaml::Value << "qs_route" << yaml::Key
                << "value" << yaml::Value << yaml::DoubleQuoted << r.routeId.toStdString();
            if (r.local()) {
                emitDescriptorTail(out, r.limits.front());
            } else {
                out << yaml::Key << "descriptors" << yaml::Value << yaml::BeginSeq;
                for (const EnvoyLimit &l : r.limits) {
                    out << yaml::BeginMap << yaml::Key << "key" << yaml::Value << "qs_limit"
                        << yaml::Key << "value" << yaml::Value << yaml::DoubleQuoted
                        << l.name.toStdString();
                    emitDescriptorTail(out, l);
                    out << yaml::EndMap;
                }
                out << yaml::EndSeq;
            }
            out << yaml::EndMap;
        }
        out << yaml::EndSeq << yaml::EndMap;
        return out.takeDocument();
    }

    std::vector<EnvoyRoute> m_routes;
    QString m_planHeader; // lower case; empty: plans are not found in a header
};

} // namespace

ExportResult EnvoyExporter::write(const Policy &policy) const
{
    return EnvoyWriter(policy, *this).run();
}

} // namespace qs
