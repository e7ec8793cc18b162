#include "model/export/haproxyexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"

#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/plans.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include <algorithm>

namespace qs {

namespace {

// HAProxy's timers are signed 32-bit milliseconds: a longer period or expiry fails `haproxy -c`.
constexpr limiter::Micros kHaproxyMaxTimer = limiter::Micros(2147483647) * limiter::kMicrosPerMilli;

// Stick-table entries outlive a period by at least a second, so that a client that pauses
// briefly keeps its count.
limiter::Micros haproxyTableExpiry(limiter::Micros period)
{
    return std::max<limiter::Micros>(limiter::kMicrosPerSecond, period);
}

// The one place that decides the numbers of `http_req_rate(P) gt L` for a designed limit: the
// writer prints them, enforcedLimit() hands them to the probe. P and L are the limit's window
// and quota (for buckets and GCRA: burst / rate and burst).
HaproxyRateLimit haproxyRateFor(const limiter::AlgorithmConfig &config)
{
    const limiter::Quota fresh = limiter::peek(config, limiter::freshState(config), 0);
    HaproxyRateLimit rate;
    rate.limit = fresh.limit;
    rate.period = std::max<limiter::Micros>(limiter::kMicrosPerMilli, fresh.window);
    // HAProxy periods are whole milliseconds.
    rate.period -= rate.period % limiter::kMicrosPerMilli;
    rate.expire = haproxyTableExpiry(rate.period);
    return rate;
}

// One limit of a route: its own table, tracked in its own stick counter.
struct LimitRule {
    qsizetype limitIndex = 0;
    QString plan; // the plan whose numbers this table enforces; empty: every plan's
    QString name; // table st_<name>; safe: [A-Za-z0-9_]
    int slot = 0; // sc<slot>: HAProxy 2.6 tracks three per request
    QString fetch; // sample fetch for the key's value
    QString tracked; // what the table stores: the value, or a digest of it
    QString tableType; // "ipv6", "binary len 32", "string len 8"
    bool canBeMissing = false; // a header or query key: missing_key applies
    QString queryName; // a query key's parameter: its first occurrence may be empty
    MissingKeyMode missing = MissingKeyMode::Shared;
    bool enforced = true;
    qint64 limit = 0;
    limiter::Micros period = 0;
};

struct RouteRule {
    qsizetype index = 0;
    QString name; // safe: [A-Za-z0-9_]
    QString regex;
    PathPattern pattern;
    std::vector<LimitRule> limits;
};

// HAProxy 2.6 has sc0..sc2 unless built otherwise (MAX_SESS_STKCTR): three limits a request.
constexpr int kHaproxyStickCounters = 3;

class HaproxyWriter final : public GatewayWriter {
public:
    HaproxyWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.setPlans(); // a table per plan, in the limit's stick counter
    }

private:
    void order() override { sortMostSpecificFirst(m_rules); }
    // haproxy.cfg, and with plans from a map file its entries as HAProxy's map file beside it.
    QStringList files() const override
    {
        QStringList out = m_exporter.suggestedFileNames();
        if (usesPlanMap())
            out << QString::fromLatin1(kPlanMapFile);
        return out;
    }
    QByteArray write(const QString &file) override
    {
        return file == QLatin1String(kPlanMapFile) ? planMap() : config().toUtf8();
    }

    void prepare(qsizetype i) override
    {
        const Route &r = m_policy.routes[i];
        RouteRule rule;
        rule.index = i;
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        rule.name = m_report.uniqueName(QString(), r.id, unsafe, QLatin1Char('_'));
        const auto pattern = m_report.pathPattern(i);
        if (!pattern)
            return;
        rule.pattern = *pattern;
        rule.regex = rule.pattern.toRegex();
        if (r.limits.size() > kHaproxyStickCounters) {
            m_report.note(Diagnostic::Severity::Error, i, QStringLiteral(".limits"),
                QStringLiteral("%1 limits, and HAProxy 2.6 tracks %2 stick counters a request "
                               "(sc0-sc2; more need a build with MAX_SESS_STKCTR, or 2.8's "
                               "tune.stick-counters): keep at most %2 limits for this target")
                    .arg(r.limits.size())
                    .arg(kHaproxyStickCounters));
            return;
        }
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            LimitRule limit;
            limit.limitIndex = l;
            limit.slot = int(l);
            limit.name = r.hasSeveralLimits() ? m_report.uniqueName(rule.name + QLatin1Char('_'),
                             r.limits[l].name, unsafe, QLatin1Char('_'))
                                              : rule.name;
            // A limit whose numbers differ by plan: a table per limited plan, all in the
            // limit's stick counter, each tracked only for requests on its plan (at most one
            // tracks: the conditions exclude each other). An unlimited plan tracks nothing.
            const bool byPlan = r.limits[l].variesByPlan() && !m_policy.plans.names.isEmpty();
            for (const QString &plan : byPlan ? m_policy.plans.names : QStringList{QString()}) {
                if (byPlan && !specForPlan(r.limits[l], plan))
                    continue;
                LimitRule one = limit;
                one.plan = plan;
                if (byPlan)
                    one.name = m_report.uniqueName(
                        limit.name + QLatin1Char('_'), plan, unsafe, QLatin1Char('_'));
                if (!prepareLimit(i, l, one))
                    return;
                rule.limits.push_back(one);
                m_planned = m_planned || byPlan;
            }
        }
        if (r.hasSeveralLimits())
            noteDeniedCountEverywhere(i);
        m_rules.push_back(rule);
    }

    // The key, table and threshold of limit `l` of route `i`; false after an error.
    bool prepareLimit(qsizetype i, qsizetype l, LimitRule &rule)
    {
        const Route &r = m_policy.routes[i];
        const RouteLimit &own = r.limits[l];
        const QString keyField = this->keyField(i, l);
        const QString at = QLatin1Char('.') + r.limitPath(l);
        const QList<KeySelector> keys = m_policy.keyOf(r, own);
        if (keys.size() != 1) {
            m_report.note(Diagnostic::Severity::Error, i, keyField,
                QStringLiteral("HAProxy tracks one sample per table: a combined key (%1 parts) "
                               "cannot be exported; use a single key")
                    .arg(keys.size()));
            return false;
        }
        static const QRegularExpression nameOk(QStringLiteral("^[A-Za-z0-9_-]+$"));
        const KeySelector &k = keys.first();
        if ((k.kind == KeySelector::Kind::Header || k.kind == KeySelector::Kind::Query)
            && !nameOk.match(k.name).hasMatch()) {
            m_report.note(Diagnostic::Severity::Error, i, keyField,
                QStringLiteral("'%1' holds characters HAProxy's configuration would read as "
                               "syntax (letters, digits, '-' and '_' only)")
                    .arg(k.name));
            return false;
        }
        // Header and query values are stored as their SHA-256: a table key of fixed size
        // that no value outgrows (`string len 128` cut long tokens, so two bearer tokens
        // with 128 leading characters in common shared one bucket).
        switch (k.kind) {
        case KeySelector::Kind::Ip:
            rule.fetch = QStringLiteral("src");
            rule.tableType = QStringLiteral("ipv6");
            break;
        case KeySelector::Kind::Global:
            rule.fetch = QStringLiteral("str(all)");
            rule.tableType = QStringLiteral("string len 8");
            break;
        case KeySelector::Kind::Header:
            // The first occurrence, whole: req.hdr() would take the last one and split
            // values at commas. The design, Starlette, Werkzeug and Go read the first.
            rule.fetch = QStringLiteral("req.fhdr(%1,1)").arg(k.name);
            rule.canBeMissing = true;
            break;
        case KeySelector::Kind::Query:
            // The first occurrence, decoded as the design decodes it (escapes of unreserved
            // characters are already decoded by normalize-uri).
            rule.fetch = QStringLiteral("url_param(%1),url_dec").arg(k.name);
            rule.canBeMissing = true;
            rule.queryName = k.name;
            break;
        }
        rule.tracked = rule.fetch;
        if (rule.canBeMissing) {
            rule.tracked += QStringLiteral(",sha2(256)");
            rule.tableType = QStringLiteral("binary len 32");
        }
        rule.missing = m_policy.missingKeyOf(r, own);
        rule.enforced = r.modeOf(own) == RouteMode::Enforce;

        const auto config = !rule.plan.isEmpty() ? m_report.planConfig(i, l, rule.plan)
            : r.hasSeveralLimits()               ? m_report.algorithmConfig(i, l)
                                                 : m_report.algorithmConfig(i);
        if (!config)
            return false;
        const HaproxyRateLimit rate = haproxyRateFor(*config);
        if (rate.expire > kHaproxyMaxTimer) {
            m_report.note(Diagnostic::Severity::Error, i, at,
                QStringLiteral("this limit needs HAProxy to count over %1, and HAProxy's "
                               "periods and table expiry end at 2147483647 ms (24d20h31m23s): "
                               "HAProxy would refuse the file. Use a window (or burst / rate) "
                               "of at most 24 days for this target")
                    .arg(formatDuration(rate.expire)));
            return false;
        }
        rule.limit = rate.limit;
        rule.period = rate.period;
        const QString as = QStringLiteral("http_req_rate(%1) gt %2")
                               .arg(formatDuration(rule.period))
                               .arg(rule.limit);
        if (limiter::algorithmOf(*config) == limiter::Algorithm::SlidingWindowCounter)
            m_report.note(Diagnostic::Severity::Warning, i, at + QStringLiteral(".algorithm"),
                QStringLiteral("exported as %1, HAProxy's own sliding window counter; unlike "
                               "Quota Studio, HAProxy also counts the requests it denies, so a "
                               "client that keeps sending stays blocked")
                    .arg(as));
        else
            m_report.note(Diagnostic::Severity::Warning, i, at + QStringLiteral(".algorithm"),
                QStringLiteral("%1 approximated as %2 (a sliding window counter of %3 per %4): "
                               "bursts and refill follow the window, not the %1, and denied "
                               "requests count too")
                    .arg(QString::fromLatin1(
                             limiter::algorithmName(limiter::algorithmOf(*config)).data()),
                        as)
                    .arg(rule.limit)
                    .arg(formatDuration(rule.period)));
        noteCostNotExported(i, l);
        return true;
    }

    // HAProxy counts a request in every tracked table when it tracks it, before any deny
    // rule runs (GATEWAY-LIMITS.md, HAProxy): a request one limit denies still takes from the
    // others, where the design takes from none.
    void noteDeniedCountEverywhere(qsizetype i)
    {
        const Route &r = m_policy.routes[i];
        QStringList figures;
        for (const RouteLimit &l : r.limits)
            if (const auto config = toAlgorithmConfig(l.spec))
                figures << QStringLiteral("'%1' (%2 per %3)")
                               .arg(ExportReport::commentSafe(l.name))
                               .arg(haproxyRateFor(*config).limit)
                               .arg(formatDuration(haproxyRateFor(*config).period));
        m_report.note(Diagnostic::Severity::Warning, i, QStringLiteral(".limits"),
            QStringLiteral("HAProxy counts a request in every limit's table before any limit "
                           "denies it: a request one limit denies still takes from the others "
                           "(the design takes from none), so a client held back by one limit "
                           "spends the others' quota too: %1 can each be used up by requests "
                           "that were all denied")
                .arg(figures.join(QStringLiteral(", "))));
    }

    QString config()
    {
        const int status = m_policy.defaults.effectiveStatus();
        QString out = QStringLiteral(
            "# Generated by Quota Studio from policy '%1'.\n"
            "# The frontend on 127.0.0.1:8090 limits; qs_backend stands in for the service.\n"
            "global\n    maxconn 4096\n"
            "    # normalize-uri below is marked experimental in HAProxy 2.4-2.6; without it\n"
            "    # //x, /./x, /a/../x and percent-escapes of letters would bypass every limit.\n"
            "    expose-experimental-directives\n%2\n"
            "defaults\n    mode http\n    timeout connect 5s\n    timeout client 30s\n"
            "    timeout server 30s\n\n"
            "frontend qs_front\n    bind 127.0.0.1:8090\n"
            "    # Routes match the normalised path, as the policy defines it.\n"
            "    http-request normalize-uri percent-decode-unreserved\n"
            "    http-request normalize-uri percent-to-uppercase\n"
            "    http-request normalize-uri path-merge-slashes\n"
            "    http-request normalize-uri path-strip-dot\n"
            "    http-request normalize-uri path-strip-dotdot full\n")
                          .arg(ExportReport::commentSafe(m_policy.name),
                              usesPlanMap() ? QStringLiteral(
                                  "    # Relative file names (the plan map) are beside this file.\n"
                                  "    default-path config\n")
                                            : QString());
        // About 760 characters a route: reserved, a 100 000-route configuration is not copied
        // over and over as it grows.
        out.reserve(out.size() + qsizetype(m_rules.size()) * 800);
        // The first (most specific) matching route claims the request; later ones skip it.
        for (const RouteRule &r : m_rules) {
            const Route &route = m_policy.routes[r.index];
            out += QStringLiteral("\n    # route %1\n").arg(ExportReport::commentSafe(route.id));
            out += QStringLiteral("    acl p_%1 path_reg '%2'\n").arg(r.name, r.regex);
            QString cond = QStringLiteral("p_%1").arg(r.name);
            if (!route.methods.isEmpty()) {
                // Upper-cased first: the design compares methods without case, HAProxy's
                // `method` ACL with it (`get` would pass a GET route by).
                out += QStringLiteral("    acl m_%1 method,upper -m str %2\n")
                           .arg(r.name, route.methods.join(QLatin1Char(' ')));
                cond += QStringLiteral(" m_%1").arg(r.name);
            }
            out += QStringLiteral("    http-request set-var(txn.qs_route) str(%1) if %2 !{ "
                                  "var(txn.qs_route) -m found }\n")
                       .arg(r.name, cond);
        }
        if (m_planned)
            out += planRules();
        for (const RouteRule &r : m_rules) {
            const QString route = QStringLiteral("{ var(txn.qs_route) -m str %1 }").arg(r.name);
            // A plan's table and threshold apply to requests on that plan only.
            const auto mineFor = [&](const LimitRule &l) {
                return l.plan.isEmpty()
                    ? route
                    : route + QStringLiteral(" { var(txn.qs_plan) -m str %1 }").arg(l.plan);
            };
            out += QStringLiteral("\n");
            for (const LimitRule &l : r.limits)
                out += tracking(l, mineFor(l), status);
            for (const LimitRule &l : r.limits) {
                const QString mine = mineFor(l);
                // The rate is read from whichever table sc<slot> tracks: the key's own, or
                // the one missing_key chose.
                const QString over
                    = QStringLiteral("{ sc_http_req_rate(%1) gt %2 }").arg(l.slot).arg(l.limit);
                if (!l.enforced)
                    out += QStringLiteral(
                        "    # shadow: report, never deny\n"
                        "    http-request set-header X-QS-Shadow-Exceeded %1 if %2 %3\n")
                               .arg(l.name, mine, over);
                else
                    out += QStringLiteral("    http-request deny deny_status %1 if %2 %3\n")
                               .arg(status)
                               .arg(mine, over);
            }
        }
        out += QStringLiteral("\n    default_backend qs_backend\n");
        for (const RouteRule &r : m_rules)
            for (const LimitRule &l : r.limits)
                out += QStringLiteral("\nbackend st_%1\n    stick-table type %2 size 100k "
                                      "expire %3 store http_req_rate(%4)\n")
                           .arg(l.name, l.tableType, tableExpiry(l), formatDuration(l.period));
        for (const RouteRule &r : m_rules)
            for (const LimitRule &l : r.limits)
                if (l.canBeMissing && l.missing == MissingKeyMode::Shared)
                    out += QStringLiteral("\nbackend st_%1_missing\n    stick-table type string "
                                          "len 8 size 1 expire %2 store http_req_rate(%3)\n")
                               .arg(l.name, tableExpiry(l), formatDuration(l.period));
                else if (l.canBeMissing && l.missing == MissingKeyMode::Ip)
                    out += QStringLiteral("\nbackend st_%1_missing\n    stick-table type ipv6 "
                                          "size 100k expire %2 store http_req_rate(%3)\n")
                               .arg(l.name, tableExpiry(l), formatDuration(l.period));
        out += QStringLiteral("\nbackend qs_backend\n    http-request return status 200 "
                              "content-type text/plain string ok\n");
        return out;
    }

    static constexpr const char *kPlanMapFile = "qs-plans.map";

    bool usesPlanMap() const
    {
        return m_planned && m_policy.plans.from && m_policy.plans.fromMap();
    }

    // txn.qs_plan, the request's plan: the default, replaced by the plan the header names
    // (`-m str` compares exactly, case included, one ACL per plan), or by the map file's plan
    // for the key's value (qs-plans.map, HAProxy's own map format: the map is one lookup in a
    // tree, and the runtime API's `set map`/`add map` change a client's plan without a reload).
    QString planRules()
    {
        const PlanSettings &plans = m_policy.plans;
        if (!plans.from)
            return {};
        QString fetch;
        switch (plans.from->kind) {
        case KeySelector::Kind::Header:
            fetch = QStringLiteral("req.fhdr(%1,1)").arg(plans.from->name);
            break;
        case KeySelector::Kind::Query:
            fetch = QStringLiteral("url_param(%1),url_dec").arg(plans.from->name);
            break;
        case KeySelector::Kind::Ip:
            fetch = QStringLiteral("src");
            break;
        case KeySelector::Kind::Global:
            return {};
        }
        QString out = QStringLiteral("\n    # The request's plan (policy `plans:`); %1 when it "
                                     "has none.\n    http-request set-var(txn.qs_plan) str(%1)\n")
                          .arg(plans.effectiveDefault());
        if (plans.fromMap()) {
            if (!plans.map) {
                m_report.notePolicy(Diagnostic::Severity::Error, QStringLiteral("plans.from.map"),
                    QStringLiteral("the plan map was not read: export from the policy's file, "
                                   "beside its map"));
                return {};
            }
            // No sample (the header absent): the default stays. An address is looked up as
            // one (map_ip), a header's or parameter's value as exact text (map_str).
            out += QStringLiteral("    http-request set-var(txn.qs_plan) %1,%2(%3,%4)\n")
                       .arg(fetch,
                           plans.from->kind == KeySelector::Kind::Ip ? QStringLiteral("map_ip")
                                                                     : QStringLiteral("map_str"),
                           QString::fromLatin1(kPlanMapFile), plans.effectiveDefault());
            return out;
        }
        for (const QString &plan : plans.names) {
            // By index: names that differ only in '.' and '-' would share a sanitised name.
            const QString acl = QStringLiteral("qs_plan_%1").arg(plans.names.indexOf(plan));
            out += QStringLiteral("    acl %1 %2 -m str %3\n").arg(acl, fetch, plan);
            out += QStringLiteral("    http-request set-var(txn.qs_plan) str(%1) if %2\n")
                       .arg(plan, acl);
        }
        return out;
    }

    // The policy's map file as HAProxy reads one: `key value` a line, the key up to the first
    // blank, `#` starting a comment line: the policy's own format, so every entry is copied as
    // it is (values hold no blanks, and none starts with `#`: the reader refuses both).
    QByteArray planMap() const
    {
        QByteArray out = "# Generated by Quota Studio: the plan of each "
            + m_policy.plans.from->toString().toUtf8() + " value (policy `plans:`, from "
            + m_policy.plans.mapFile->toUtf8() + ").\n# A value not listed is on "
            + m_policy.plans.effectiveDefault().toUtf8()
            + ". Changed at runtime with `set map`/`add map` on HAProxy's runtime API.\n";
        if (m_policy.plans.map)
            for (const PlanMapEntry &e : m_policy.plans.map->entries)
                out += e.value.toUtf8() + ' ' + e.plan.toUtf8() + '\n';
        return out;
    }

    static QString tableExpiry(const LimitRule &r)
    {
        return formatDuration(haproxyTableExpiry(r.period));
    }

    // Which table sc0 tracks for a request the route claims. A header or query key that is
    // absent or empty (`-m len 1:` fails for both) follows missing_key: its own table for the
    // shared bucket or the address (no value of the key's table can collide with them), a
    // denial, or no tracking at all.
    QString tracking(const LimitRule &r, const QString &mine, int status) const
    {
        if (!r.canBeMissing)
            return QStringLiteral("    http-request track-sc%4 %1 table st_%2 if %3\n")
                .arg(r.tracked, r.name, mine)
                .arg(r.slot);
        QString out = QStringLiteral("    acl k_%1 %2 -m len 1:\n").arg(r.name, r.fetch);
        // The key is there when its value is not empty. url_param() skips an empty occurrence
        // (`?tenant=&tenant=x` gave x), while the design reads the first one, empty or not: a
        // regex over the query tells when the first occurrence of the name is empty.
        QString present = QStringLiteral("%1 k_%2").arg(mine, r.name);
        QString missing = QStringLiteral("%1 !k_%2").arg(mine, r.name);
        if (!r.queryName.isEmpty()) {
            out += QStringLiteral(
                "    acl e_%1 query -m reg '^(?:(?!%2(?:[=&]|$))[^&]*&)*%2=?(?:&|$)'\n")
                       .arg(r.name, r.queryName);
            present += QStringLiteral(" !e_%1").arg(r.name);
            missing += QStringLiteral(" || %1 e_%2").arg(mine, r.name);
        }
        out += QStringLiteral("    http-request track-sc%4 %1 table st_%2 if %3\n")
                   .arg(r.tracked, r.name, present)
                   .arg(r.slot);
        const bool enforce = r.enforced;
        switch (r.missing) {
        case MissingKeyMode::Shared:
            return out
                + QStringLiteral(
                    "    http-request track-sc%3 str(missing) table st_%1_missing if %2\n")
                      .arg(r.name, missing)
                      .arg(r.slot);
        case MissingKeyMode::Ip:
            return out
                + QStringLiteral("    http-request track-sc%3 src table st_%1_missing if %2\n")
                      .arg(r.name, missing)
                      .arg(r.slot);
        case MissingKeyMode::Deny:
            if (!enforce)
                return out
                    + QStringLiteral(
                        "    http-request set-header X-QS-Shadow-Missing-Key %1 if %2\n")
                          .arg(r.name, missing);
            return out
                + QStringLiteral("    http-request deny deny_status %1 if %2\n")
                      .arg(QString::number(status), missing);
        case MissingKeyMode::Allow:
            break;
        }
        return out;
    }

    std::vector<RouteRule> m_rules;
    bool m_planned = false; // a table is per plan: txn.qs_plan is needed
};

} // namespace

ExportResult HaproxyExporter::write(const Policy &policy) const
{
    return HaproxyWriter(policy, *this).run();
}

std::optional<EnforcedLimit> HaproxyExporter::enforcedLimit(
    const limiter::AlgorithmConfig &designed) const
{
    EnforcedLimit enforced;
    const HaproxyRateLimit rate = haproxyRateFor(designed);
    enforced.config = rate;
    enforced.countsRequests = true;
    // Periods start on even milliseconds of HAProxy's own clock, whose parity the probe cannot
    // know: the start can be one more millisecond early.
    enforced.clockGrain = 2 * limiter::kMicrosPerMilli;
    enforced.description = QStringLiteral("HAProxy http_req_rate(%1) gt %2 (its two-period "
                                          "sliding counter, denied requests counted too)")
                               .arg(formatDuration(rate.period))
                               .arg(rate.limit);
    return enforced;
}

} // namespace qs
