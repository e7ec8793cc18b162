#include "model/export/nginxexporter.h"

#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"

#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/plans.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <set>

namespace qs {

namespace {

// One limit of a route as NGINX enforces it: a zone keyed by the limit's key and a
// limit_req line. A route's only limit's zone bears the route's name (qs_<id>); with several,
// each is qs_<id>_<name>.
struct LimitExport {
    const Route *route = nullptr;
    const RouteLimit *limit = nullptr;
    qsizetype index = 0; // the route's
    qsizetype limitIndex = 0;
    QString zone; // safe characters only
    QString claim; // the route's name in the claim maps ($qs_route)
    QString plan; // the plan whose numbers this zone enforces; empty: every plan's
    QString keyExpr; // e.g. $binary_remote_addr, or $remote_addr\n$http_x_api_key
    // Header and query variables of the key; their presence gates the key under
    // missing_key deny and allow.
    QStringList keyVariables;
    // The "is percent-escaped" flags of the key's query parts (NGINX cannot decode them).
    QStringList escapedFlags;
    MissingKeyMode missing = MissingKeyMode::Shared;
    QString rate; // "10r/s"
    qint64 burst = 0;
    bool nodelay = true;
    bool enforced() const { return route->modeOf(*limit) == RouteMode::Enforce; }
    // missing_key deny/allow: the key exists only when every header or query part is present.
    bool gated() const
    {
        return !keyVariables.isEmpty()
            && (missing == MissingKeyMode::Deny || missing == MissingKeyMode::Allow);
    }
    // The server refuses this route's requests without this limit's key, or with an escaped
    // query key (shadow limits only report).
    bool deniesMissingKey() const
    {
        return enforced() && gated() && missing == MissingKeyMode::Deny;
    }
    bool refusesEscapedKey() const { return enforced() && !escapedFlags.isEmpty(); }
};

// A route as NGINX claims it: the claim regexes, and its exported limits.
struct RouteExport {
    const Route *route = nullptr;
    qsizetype index = 0;
    QString claim; // qs_<id>, safe characters only
    // The claim map's two regexes: over "METHOD $uri" and over "METHOD undecoded path".
    QString decodedClaim, encodedClaim;
    std::optional<PathPattern> pattern;
    std::vector<LimitExport> limits;
    // Counted in dry run in a location of its own: every limit of the route is shadow. A
    // route with enforced limits leaves its shadow ones out (NGINX's dry run is per location).
    bool enforced() const
    {
        return std::any_of(
            limits.begin(), limits.end(), [](const LimitExport &l) { return l.enforced(); });
    }
    bool deniesMissingKey() const
    {
        return std::any_of(limits.begin(), limits.end(),
            [](const LimitExport &l) { return l.deniesMissingKey(); });
    }
    bool refusesEscapedKey() const
    {
        return std::any_of(limits.begin(), limits.end(),
            [](const LimitExport &l) { return l.refusesEscapedKey(); });
    }
};

// "N r/s" or "N r/m" with a whole N, else the nearest per-minute figure and a note.
struct NginxRate {
    QString text; // "10r/s"
    limiter::Rate rate; // what NGINX enforces
};

NginxRate nginxRate(const limiter::Rate &r, QString *approximation)
{
    const double perSecond = double(r.count) * 1e6 / double(r.period);
    if (std::abs(perSecond - std::round(perSecond)) < 1e-9 && perSecond >= 1) {
        const qint64 n = std::llround(perSecond);
        return {QStringLiteral("%1r/s").arg(n), {n, limiter::kMicrosPerSecond}};
    }
    const double perMinute = perSecond * 60;
    if (std::abs(perMinute - std::round(perMinute)) < 1e-9 && perMinute >= 1) {
        const qint64 n = std::llround(perMinute);
        return {QStringLiteral("%1r/m").arg(n), {n, 60 * limiter::kMicrosPerSecond}};
    }
    // Round down: a limiter that is off by a fraction should be off on the strict side. Below
    // one a minute NGINX has nothing slower to offer, and the warning says how much faster.
    const qint64 rounded = std::max<qint64>(1, qint64(std::floor(perMinute)));
    const QString consequence = perMinute < 1
        ? QStringLiteral("1r/m is NGINX's slowest rate: %1x the designed one")
              .arg(1.0 / perMinute, 0, 'g', 3)
        : QStringLiteral("%1 per second instead of %2")
              .arg(double(rounded) / 60.0, 0, 'g', 4)
              .arg(perSecond, 0, 'g', 4);
    *approximation = QStringLiteral("rate %1 is not a whole number per second or per minute; "
                                    "exported as %2r/m (%3)")
                         .arg(formatRate(r))
                         .arg(rounded)
                         .arg(consequence);
    return {QStringLiteral("%1r/m").arg(rounded), {rounded, 60 * limiter::kMicrosPerSecond}};
}

// The one place that decides what `limit_req` gets for a designed limit: the writer prints it,
// enforcedLimit() hands it to the probe.
struct LimitReq {
    NginxRate rate;
    qint64 burst = 0; // NGINX's burst: it admits burst + 1 back to back
    bool nodelay = true;
    bool windowed = false; // a window limit, approximated by the bucket
};

LimitReq limitReqFor(const limiter::AlgorithmConfig &config, QString *approximation)
{
    return std::visit(
        [&](const auto &c) -> LimitReq {
            using C = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<C, limiter::TokenBucketConfig>)
                return {nginxRate(c.refill, approximation), c.capacity - 1};
            else if constexpr (std::is_same_v<C, limiter::GcraConfig>)
                return {nginxRate(c.rate, approximation), c.burst - 1};
            else if constexpr (std::is_same_v<C, limiter::LeakyBucketConfig>)
                return {
                    nginxRate(c.rate, approximation), c.queue, c.mode == limiter::LeakMode::Police};
            else
                return {nginxRate({c.limit, c.window}, approximation), c.limit - 1, true, true};
        },
        config);
}

} // namespace

std::optional<EnforcedLimit> NginxExporter::enforcedLimit(
    const limiter::AlgorithmConfig &designed) const
{
    QString approximation;
    const LimitReq l = limitReqFor(designed, &approximation);
    EnforcedLimit enforced;
    enforced.countsRequests = true;
    if (l.nodelay)
        enforced.config = limiter::GcraConfig{l.rate.rate, l.burst + 1};
    else
        enforced.config
            = limiter::LeakyBucketConfig{l.rate.rate, l.burst, limiter::LeakMode::Shape};
    enforced.description
        = QStringLiteral("NGINX limit_req rate=%1%2%3 (a GCRA of %4 at once)")
              .arg(l.rate.text, l.burst > 0 ? QStringLiteral(" burst=%1").arg(l.burst) : QString(),
                  l.nodelay ? QStringLiteral(" nodelay") : QString())
              .arg(l.burst + 1);
    return enforced;
}

namespace {

// NGINX reads a configuration file through a 4 KiB buffer: a longer parameter fails `nginx -t`
// ("too long parameter"). Claim regexes are kept below it with room for the quotes.
constexpr qsizetype kNginxMaxParameter = 4000;

// The status of a request NGINX cannot match or key as the design does (an undecodable key,
// an encoded slash beside a dot segment). Never a bypass: the request is refused, not counted.
constexpr int kRefusedStatus = 400;

// Requests claimed by a shadow route are sent here, where their zones count in dry-run mode.
// NGINX's dry run is one switch per location: a status of its own routes them to one.
constexpr int kShadowRedirect = 599;

class NginxWriter final : public GatewayWriter {
public:
    NginxWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        m_report.setPlans(); // a zone per plan (planZones)
    }

private:
    // The key's parts joined by a newline, which no header, query value or textual address
    // can hold (a plain concatenation let "ab"+"c" and "a"+"bc" share one bucket). A single
    // ip key keeps the compact $binary_remote_addr. Header and query parts go through
    // `missingSubstitute` under missing_key shared and ip.
    std::optional<QString> keyExpression(LimitExport &e)
    {
        const qsizetype i = e.index;
        const QList<KeySelector> keys = m_policy.keyOf(*e.route, *e.limit);
        const QString keyField = this->keyField(i, e.limitIndex);
        QStringList parts;
        for (const KeySelector &k : keys) {
            static const QRegularExpression headerOk(QStringLiteral("^[A-Za-z0-9-]+$"));
            static const QRegularExpression argOk(QStringLiteral("^[A-Za-z0-9_]+$"));
            switch (k.kind) {
            case KeySelector::Kind::Ip:
                parts << (keys.size() == 1 ? QStringLiteral("$binary_remote_addr")
                                           : QStringLiteral("$remote_addr"));
                break;
            case KeySelector::Kind::Global:
                parts << QStringLiteral("all");
                break;
            case KeySelector::Kind::Header:
                if (k.name.contains(QLatin1Char('_'))) {
                    // With underscores_in_headers on, $http_x_api_key would also read
                    // X-Api-Key (NGINX maps '-' to '_'): the client would choose its bucket.
                    m_report.note(Diagnostic::Severity::Error, i, keyField,
                        QStringLiteral("header '%1': NGINX drops headers whose name holds '_' "
                                       "(every client would share one bucket, or none be "
                                       "limited), and with underscores_in_headers on it cannot "
                                       "tell '%1' from '%2'; name the header with '-'")
                            .arg(k.name,
                                QString(k.name).replace(QLatin1Char('_'), QLatin1Char('-'))));
                    return std::nullopt;
                }
                if (!headerOk.match(k.name).hasMatch()) {
                    m_report.note(Diagnostic::Severity::Error, i, keyField,
                        QStringLiteral("header '%1' has characters NGINX variables cannot name "
                                       "($http_… takes letters, digits and '-')")
                            .arg(k.name));
                    return std::nullopt;
                }
                parts << keyVariable(e,
                    QStringLiteral("http_")
                        + k.name.toLower().replace(QLatin1Char('-'), QLatin1Char('_')));
                break;
            case KeySelector::Kind::Query:
                if (!argOk.match(k.name).hasMatch()) {
                    m_report.note(Diagnostic::Severity::Error, i, keyField,
                        QStringLiteral("query parameter '%1' cannot be read by NGINX (letters, "
                                       "digits and '_' only)")
                            .arg(k.name));
                    return std::nullopt;
                }
                m_queryNames.insert(k.name);
                e.escapedFlags << QStringLiteral("$qs_query_%1_escaped").arg(k.name);
                parts << keyVariable(e, QStringLiteral("qs_query_") + k.name);
                if (e.enforced())
                    m_report.note(Diagnostic::Severity::Warning, i, keyField,
                        QStringLiteral("NGINX cannot percent-decode a query value: a request "
                                       "whose '%1' holds a %-escape is refused with %2 (the "
                                       "design would decode it and count it)")
                            .arg(k.name)
                            .arg(kRefusedStatus));
                break;
            }
        }
        return parts.join(QStringLiteral("\\n"));
    }

    // A header or query part: the variable itself where its presence gates the whole key
    // (deny, allow), else a map that fills an empty value with the fallback.
    QString keyVariable(LimitExport &e, const QString &variable)
    {
        e.keyVariables << variable;
        switch (e.missing) {
        case MissingKeyMode::Shared:
        case MissingKeyMode::Ip:
            m_substitutes.insert({variable, e.missing});
            return QStringLiteral("$%1").arg(substituteName(variable, e.missing));
        case MissingKeyMode::Deny:
        case MissingKeyMode::Allow:
            m_presenceFlags.insert(variable);
            break;
        }
        return QLatin1Char('$') + variable;
    }

    static QString substituteName(const QString &variable, MissingKeyMode mode)
    {
        return QStringLiteral("qs_%1_or_%2").arg(variable, missingKeyModeName(mode));
    }

    // "qs_route_zone:11" when every gated part is present, as the limit's gate map sees it.
    static QString presenceSource(const LimitExport &e)
    {
        QString flags;
        for (const QString &v : e.keyVariables)
            flags += QStringLiteral("$qs_has_") + v;
        return QStringLiteral("$qs_route:") + flags;
    }

    // The design reads the first `name=` of the query string, by its exact name (spelled with
    // escapes or not), and percent-decodes the value. NGINX's $arg_name ignores the name's case
    // and keeps the value raw, so the value comes from a regex over $args instead; a value
    // holding an escape is flagged, and refused where a route keys on it.
    QString queryMaps() const
    {
        QString out;
        for (const QString &name : m_queryNames) {
            const QString nameRegex = encodedTextRegex(name);
            out += QStringLiteral("map $args $qs_query_%1 {\n"
                                  "    \"~(?:^|&)%2(?:=([^&]*))?(?:&|\\z)\" \"$1\";\n"
                                  "    default \"\";\n}\n"
                                  "map $qs_query_%1 $qs_query_%1_escaped {\n"
                                  "    \"~%\" 1;\n    default 0;\n}\n")
                       .arg(name, nameRegex);
        }
        return out;
    }

    QString missingKeyMaps() const
    {
        QString out;
        for (const auto &[variable, mode] : m_substitutes)
            // An empty value is a missing one. "\n" (a newline) cannot occur in a header or
            // an undecoded query value, so the shared bucket is no client's own.
            out += QStringLiteral("map $%1 $%2 {\n    \"\" %3;\n    default $%1;\n}\n")
                       .arg(variable, substituteName(variable, mode),
                           mode == MissingKeyMode::Ip ? QStringLiteral("$remote_addr")
                                                      : QStringLiteral("\"\\n\""));
        for (const QString &variable : m_presenceFlags)
            out += QStringLiteral("map $%1 $qs_has_%1 {\n    \"\" 0;\n    default 1;\n}\n")
                       .arg(variable);
        return out;
    }

    void prepare(qsizetype i) override
    {
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        const Route &r = m_policy.routes[i];
        RouteExport e;
        e.route = &r;
        e.index = i;
        e.claim = m_report.uniqueName(QStringLiteral("qs_"), r.id, unsafe, QLatin1Char('_'));
        e.pattern = m_report.pathPattern(i);
        if (!e.pattern || !claimRegexes(e))
            return;
        const bool allShadow = std::all_of(r.limits.begin(), r.limits.end(),
            [&](const RouteLimit &l) { return r.modeOf(l) == RouteMode::Shadow; });
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            const RouteLimit &limit = r.limits[l];
            if (!allShadow && r.modeOf(limit) == RouteMode::Shadow) {
                m_report.note(Diagnostic::Severity::Warning, i,
                    QLatin1Char('.') + r.limitPath(l) + QStringLiteral(".mode"),
                    QStringLiteral("shadow limit '%1' is not exported: NGINX's dry run is one "
                                   "switch per location, and this route's other limits are "
                                   "enforced there; NGINX neither counts nor reports it")
                        .arg(ExportReport::commentSafe(limit.name)));
                continue;
            }
            LimitExport x;
            x.route = &r;
            x.limit = &limit;
            x.index = i;
            x.limitIndex = l;
            x.claim = e.claim;
            x.zone = r.hasSeveralLimits() ? m_report.uniqueName(
                         e.claim + QLatin1Char('_'), limit.name, unsafe, QLatin1Char('_'))
                                          : e.claim;
            x.missing = m_policy.missingKeyOf(r, limit);
            const auto key = keyExpression(x);
            if (!key)
                return;
            x.keyExpr = *key;
            noteCostNotExported(i, l);
            if (limit.variesByPlan() && !m_policy.plans.names.isEmpty()) {
                if (!planZones(e, x))
                    return;
                continue;
            }
            const auto config = r.hasSeveralLimits() ? m_report.algorithmConfig(i, l)
                                                     : m_report.algorithmConfig(i);
            if (!config)
                return;
            mapLimit(x, *config);
            e.limits.push_back(x);
        }
        m_routes.push_back(e);
    }

    // A limit whose numbers differ by plan: a zone per limited plan, each keyed only for
    // requests on its plan ($qs_plan), so that NGINX counts a request in its plan's zone alone
    // (an empty key is not counted). An unlimited plan has no zone.
    bool planZones(RouteExport &e, const LimitExport &limit)
    {
        static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9_]"));
        for (const QString &plan : m_policy.plans.names) {
            if (!specForPlan(*limit.limit, plan))
                continue;
            const auto config = m_report.planConfig(e.index, limit.limitIndex, plan);
            if (!config)
                return false;
            LimitExport x = limit;
            x.plan = plan;
            x.zone = m_report.uniqueName(
                limit.zone + QLatin1Char('_'), plan, unsafe, QLatin1Char('_'));
            mapLimit(x, *config);
            e.limits.push_back(x);
            m_planned = true;
        }
        return true;
    }

    // $qs_plan, the request's plan as the policy finds it. Map strings match ignoring case and
    // a plan's name or an API key must match exactly, so names are matched by case-sensitive
    // regexes, and a key's entry (found ignoring case) carries its own spelling, which a regex
    // with a back-reference compares with the request's value.
    QString planMaps()
    {
        const PlanSettings &plans = m_policy.plans;
        const QString fallback = plans.effectiveDefault();
        if (!plans.from)
            return {};
        QString source;
        switch (plans.from->kind) {
        case KeySelector::Kind::Header:
            source = QStringLiteral("$http_")
                + plans.from->name.toLower().replace(QLatin1Char('-'), QLatin1Char('_'));
            break;
        case KeySelector::Kind::Query:
            m_queryNames.insert(plans.from->name);
            source = QStringLiteral("$qs_query_") + plans.from->name;
            break;
        case KeySelector::Kind::Ip:
            source = QStringLiteral("$remote_addr");
            break;
        case KeySelector::Kind::Global:
            return {};
        }
        QString out
            = QStringLiteral("\n# The request's plan (policy `plans:`); `%1` when it has none.\n")
                  .arg(fallback);
        if (!plans.fromMap()) {
            out += QStringLiteral("map %1 $qs_plan {\n    default %2;\n").arg(source, fallback);
            for (const QString &name : plans.names)
                out += QStringLiteral("    \"~^%1\\z\" %2;\n")
                           .arg(QRegularExpression::escape(name), name);
            return out + QStringLiteral("}\n");
        }
        if (!plans.map) {
            m_report.notePolicy(Diagnostic::Severity::Error, QStringLiteral("plans.from.map"),
                QStringLiteral("the plan map was not read: export from the policy's file, beside "
                               "its map"));
            return {};
        }
        out += QStringLiteral("map %1 $qs_plan_entry {\n    default \"\";\n").arg(source);
        // Strings match ignoring case, and two values one case apart would be one string
        // (NGINX refuses the duplicate): such values are matched by case-sensitive regexes.
        std::map<QString, int> spellings;
        for (const PlanMapEntry &entry : plans.map->entries)
            ++spellings[entry.value.toLower()];
        for (const PlanMapEntry &entry : plans.map->entries) {
            // A result value interpolates '$', and quoting '"' and '\\' would change what a
            // regex reads: NGINX cannot hold such a value exactly.
            static const QRegularExpression unsafe(QStringLiteral("[$\"\\\\]"));
            if (entry.value.contains(unsafe)) {
                m_report.notePolicy(Diagnostic::Severity::Error, QStringLiteral("plans.from.map"),
                    QStringLiteral("map line %1: NGINX cannot hold a value with '$', '\"' or '\\' "
                                   "exactly; this key is left out of NGINX's plan map (its "
                                   "client gets '%2')")
                        .arg(entry.line)
                        .arg(fallback));
                continue;
            }
            // A value read as a regex (`~…`) or a map parameter is matched as a regex too.
            static const QStringList parameters = {QStringLiteral("default"),
                QStringLiteral("hostnames"), QStringLiteral("include"), QStringLiteral("volatile")};
            const bool asRegex = spellings[entry.value.toLower()] > 1
                || entry.value.startsWith(QLatin1Char('~'))
                || parameters.contains(entry.value.toLower());
            const QString match = asRegex
                ? QStringLiteral("~^%1\\z").arg(QRegularExpression::escape(entry.value))
                : entry.value;
            out += QStringLiteral("    \"%1\" \"%2 %3\";\n").arg(match, entry.plan, entry.value);
        }
        out += QStringLiteral("}\nmap \"$qs_plan_entry %1\" $qs_plan {\n"
                              "    \"~^(\\S+) (\\S+) \\2\\z\" $1;\n    default %2;\n}\n")
                   .arg(source, fallback);
        return out;
    }

    // "METHOD path" regexes of the claim maps: over $uri, which NGINX has decoded and
    // normalised as the design does (dot segments, merged slashes) and which may hold any byte,
    // a newline included (dot-all, `\z`); and over the undecoded path, for requests with an
    // encoded slash, which $uri cannot keep inside its segment.
    bool claimRegexes(RouteExport &e)
    {
        const QString methods = e.route->methods.isEmpty()
            ? QStringLiteral("[^ ]+")
            : QStringLiteral("(?:%1)").arg(e.route->methods.join(QLatin1Char('|')));
        const auto &segments = e.pattern->segments();
        const bool rest
            = !segments.isEmpty() && segments.last().kind == PathPattern::SegmentKind::DoubleStar;
        const QString end = rest ? QStringLiteral("\\z") : QStringLiteral("/?\\z");
        e.decodedClaim
            = QStringLiteral("~(?s)^%1 %2%3")
                  .arg(methods, e.pattern->regexBody(PathPattern::Spelling::Decoded), end);
        e.encodedClaim
            = QStringLiteral("~^%1 %2%3")
                  .arg(methods, e.pattern->regexBody(PathPattern::Spelling::Encoded), end);
        const qsizetype longest = std::max(e.decodedClaim.size(), e.encodedClaim.size());
        if (longest > kNginxMaxParameter) {
            m_report.note(Diagnostic::Severity::Error, e.index, QStringLiteral(".match.path"),
                QStringLiteral("the path's regex is %1 characters as NGINX must match it (every "
                               "character also as its %XX escape), and NGINX reads at most %2 "
                               "in one parameter: shorten the path")
                    .arg(longest)
                    .arg(kNginxMaxParameter));
            return false;
        }
        return true;
    }

    // Claims are tried in map order: most specific first, as the policy resolves.
    void order() override { sortMostSpecificFirst(m_routes); }

    // In the file table's order: the snippets first, then the complete configuration made of
    // them.
    QByteArray write(const QString &file) override
    {
        if (file == QLatin1String("qs-limits-http.conf"))
            return m_http = httpSnippet().toUtf8();
        if (file == QLatin1String("qs-limits-server.conf")) {
            noteRefusedForms();
            return m_server = serverSnippet().toUtf8();
        }
        return completeConfig(m_http, m_server);
    }

    void mapLimit(LimitExport &e, const limiter::AlgorithmConfig &config)
    {
        QString approximation;
        const qsizetype i = e.index;
        const QString at = QLatin1Char('.') + e.route->limitPath(e.limitIndex);
        const LimitReq l = limitReqFor(config, &approximation);
        e.rate = l.rate.text;
        e.burst = l.burst;
        e.nodelay = l.nodelay;
        if (l.windowed) {
            std::visit(
                [&](const auto &c) {
                    using C = std::decay_t<decltype(c)>;
                    if constexpr (requires { c.window; }) {
                        const double spacing = double(c.window) / double(c.limit) / 1e6;
                        m_report.note(Diagnostic::Severity::Warning, i,
                            at + QStringLiteral(".algorithm"),
                            QStringLiteral(
                                "%1 %2/%3 exported to NGINX as rate=%4 burst=%5 nodelay: "
                                "%2 at once, then one every %6 s; the window never resets%7")
                                .arg(QString::fromLatin1(
                                    limiter::algorithmName(limiter::algorithmOf(config)).data())
                                         .replace(QLatin1Char('_'), QLatin1Char(' ')))
                                .arg(c.limit)
                                .arg(formatDuration(c.window), e.rate)
                                .arg(e.burst)
                                .arg(spacing, 0, 'g', 3)
                                .arg(std::is_same_v<C, limiter::FixedWindowConfig>
                                        ? QStringLiteral(" (and no boundary spike)")
                                        : QString()));
                    }
                },
                config);
        }
        if (!approximation.isEmpty())
            m_report.note(Diagnostic::Severity::Warning, i, at, approximation);
    }

    // Which route claims a request, as the policy resolves it: routes most specific first, the
    // first match wins. NGINX picks locations by decoded path only, so neither methods nor
    // encoded slashes can be left to locations; the claim is made here and every zone is
    // applied in the server, keyed only when its route claims the request.
    //
    // $uri is decoded: `/k/a%2Fb` is `/k/a/b` there, while the design keeps `a/b` as one
    // segment. A request whose undecoded path holds an encoded slash is matched undecoded
    // instead; with a dot or empty segment beside it (which only the decoded path resolves),
    // it is refused.
    QString claimMaps() const
    {
        QString out = QStringLiteral(
            "map $request_uri $qs_encoded_path {\n"
            "    \"~^(?=[^?]*%2[Ff])[^?]*(?://|/(?:\\.|%2[Ee]){1,2}(?:[/?]|\\z))\" \"!\";\n"
            "    \"~^([^?]*%2[Ff][^?]*)\" \"$1\";\n"
            "    default \"\";\n}\n");
        out += QStringLiteral("map \"$request_method $uri\" $qs_route_decoded {\n"
                              "    default \"\";\n");
        for (const RouteExport &e : m_routes)
            out += QStringLiteral("    \"%1\" %2;\n").arg(e.decodedClaim, e.claim);
        out += QStringLiteral("}\nmap \"$request_method $qs_encoded_path\" $qs_route_encoded {\n"
                              "    default \"\";\n");
        for (const RouteExport &e : m_routes)
            out += QStringLiteral("    \"%1\" %2;\n").arg(e.encodedClaim, e.claim);
        out += QStringLiteral("}\nmap $qs_encoded_path $qs_route {\n"
                              "    \"\" $qs_route_decoded;\n    \"!\" \"\";\n"
                              "    default $qs_route_encoded;\n}\n");
        return out;
    }

    // `map $qs_route $name { zone value; … default fallback; }` over the routes that have one.
    template <class ValueOf>
    QString perRouteMap(const QString &name, const QString &fallback, ValueOf valueOf) const
    {
        QString rows;
        for (const RouteExport &e : m_routes)
            if (const QString v = valueOf(e); !v.isEmpty())
                rows += QStringLiteral("    %1 %2;\n").arg(e.claim, v);
        if (rows.isEmpty())
            return {};
        return QStringLiteral("map $qs_route $%1 {\n%2    default %3;\n}\n")
            .arg(name, rows, fallback);
    }

    QString httpSnippet()
    {
        QString out = QStringLiteral(
            "# Generated by Quota Studio from policy '%1'. Include inside http {}.\n"
            "# A zone counts only the requests its route claims: for any other request its key\n"
            "# is empty, and NGINX does not count empty keys.\n")
                          .arg(ExportReport::commentSafe(m_policy.name));
        out += claimMaps();
        if (m_planned)
            out += planMaps();
        out += queryMaps();
        out += missingKeyMaps();
        for (const RouteExport &route : m_routes)
            for (const LimitExport &e : route.limits)
                out += zoneOf(e);
        out += QStringLiteral("\n");
        out += severalDenials();
        out += perRouteMap(
            QStringLiteral("qs_deny"), QStringLiteral("0"), [](const RouteExport &e) {
                const auto denying = std::count_if(e.limits.begin(), e.limits.end(),
                    [](const LimitExport &l) { return l.deniesMissingKey(); });
                if (denying == 0)
                    return QString();
                if (denying > 1)
                    return QStringLiteral("$%1_deny").arg(e.claim);
                return QStringLiteral("$%1_deny")
                    .arg(std::find_if(e.limits.begin(), e.limits.end(), [](const LimitExport &l) {
                        return l.deniesMissingKey();
                    })->zone);
            });
        out += perRouteMap(
            QStringLiteral("qs_escaped_key"), QStringLiteral("0"), [](const RouteExport &e) {
                QStringList flags;
                for (const LimitExport &l : e.limits)
                    if (l.refusesEscapedKey())
                        flags << l.escapedFlags;
                return flags.isEmpty() ? QString()
                                       : QStringLiteral("\"%1\"").arg(flags.join(QString()));
            });
        out += perRouteMap(QStringLiteral("qs_shadow"), QStringLiteral("0"),
            [](const RouteExport &e) { return e.enforced() ? QString() : QStringLiteral("1"); });
        return out;
    }

    // A limit's key map and zone.
    static QString zoneOf(const LimitExport &e)
    {
        QString out = QStringLiteral("\n# route %1%2\n")
                          .arg(ExportReport::commentSafe(e.route->id), whichLimit(e));
        const QString ones(e.keyVariables.size(), QLatin1Char('1'));
        if (!e.plan.isEmpty()) {
            // Keyed only on its plan; missing_key deny and allow as below, per plan.
            const QString source = QStringLiteral("$qs_route:$qs_plan:")
                + (e.gated() ? presenceSource(e).mid(QStringLiteral("$qs_route:").size())
                             : QString());
            const QString claim = e.claim + QLatin1Char(':') + e.plan + QLatin1Char(':');
            out += QStringLiteral("map \"%1\" $%2_key {\n    \"%3%4\" \"%5\";\n    "
                                  "default \"\";\n}\n")
                       .arg(source, e.zone, claim, e.gated() ? ones : QString(), e.keyExpr);
            if (e.gated() && e.missing == MissingKeyMode::Deny)
                out += QStringLiteral("map \"%1\" $%2_deny {\n    \"%3%4\" 0;\n    "
                                      "\"~^%3\" 1;\n    default 0;\n}\n")
                           .arg(source, e.zone, claim, ones);
        } else if (e.gated()) {
            // missing_key deny/allow: no key (not counted) unless every part is present.
            out += QStringLiteral("map \"%1\" $%2_key {\n    \"%5:%3\" \"%4\";\n    "
                                  "default \"\";\n}\n")
                       .arg(presenceSource(e), e.zone, ones, e.keyExpr, e.claim);
            if (e.missing == MissingKeyMode::Deny)
                out += QStringLiteral("map \"%1\" $%2_deny {\n    \"%3:%4\" 0;\n    "
                                      "\"~^%3:\" 1;\n    default 0;\n}\n")
                           .arg(presenceSource(e), e.zone, e.claim, ones);
        } else {
            out += QStringLiteral("map $qs_route $%1_key {\n    %2 \"%3\";\n    default \"\";\n}\n")
                       .arg(e.zone, e.claim, e.keyExpr);
        }
        out += QStringLiteral("limit_req_zone $%1_key zone=%1:10m rate=%2;\n").arg(e.zone, e.rate);
        return out;
    }

    // ", limit burst", ", plan pro": which limit of the route a zone is, in comments.
    static QString whichLimit(const LimitExport &e)
    {
        QString out;
        if (e.route->hasSeveralLimits())
            out += QStringLiteral(", limit ") + ExportReport::commentSafe(e.limit->name);
        if (!e.plan.isEmpty())
            out += QStringLiteral(", plan ") + ExportReport::commentSafe(e.plan);
        return out;
    }

    // A route with several limits that refuse a request lacking their key: refused when any
    // of them does.
    QString severalDenials() const
    {
        QString out;
        for (const RouteExport &e : m_routes) {
            QString sources;
            int denying = 0;
            for (const LimitExport &l : e.limits)
                if (l.deniesMissingKey()) {
                    sources += QStringLiteral("$%1_deny").arg(l.zone);
                    ++denying;
                }
            if (denying > 1)
                out += QStringLiteral("map \"%1\" $%2_deny {\n    \"~1\" 1;\n    default 0;\n}\n")
                           .arg(sources, e.claim);
        }
        return out;
    }

    bool any(bool (RouteExport::*predicate)() const) const
    {
        return std::any_of(m_routes.begin(), m_routes.end(),
            [predicate](const RouteExport &e) { return (e.*predicate)(); });
    }

    // Every zone applies in the server (locations without limit_req of their own inherit
    // them): a zone counts only the requests its route claims, wherever they are served.
    // Refusals come first: `return` runs in the rewrite phase, before limit_req, so a refused
    // request is counted nowhere. Shadow routes count in a location of their own, in dry run.
    QString serverSnippet() const
    {
        const int status = m_policy.defaults.effectiveStatus();
        QString out = QStringLiteral(
            "# Generated by Quota Studio from policy '%1'. Include inside server {}; define\n"
            "# `upstream qs_backend` for the service behind it. Every zone below applies to\n"
            "# every location of the server that has no limit_req of its own.\n")
                          .arg(ExportReport::commentSafe(m_policy.name));
        out += QStringLiteral("\n# An encoded slash beside a dot or empty segment: NGINX cannot "
                              "match it as the design does.\nif ($qs_encoded_path = \"!\") {\n"
                              "    return %1;\n}\n")
                   .arg(kRefusedStatus);
        if (any(&RouteExport::deniesMissingKey))
            out += QStringLiteral("# missing_key: deny\nif ($qs_deny) {\n    return %1;\n}\n")
                       .arg(status);
        if (any(&RouteExport::refusesEscapedKey))
            out += QStringLiteral("# A query key NGINX cannot decode.\n"
                                  "if ($qs_escaped_key ~ 1) {\n    return %1;\n}\n")
                       .arg(kRefusedStatus);
        const bool shadows = !std::all_of(
            m_routes.begin(), m_routes.end(), [](const RouteExport &e) { return e.enforced(); });
        if (shadows)
            out += QStringLiteral("# Shadow routes count in @qs_shadow, in dry run.\n"
                                  "if ($qs_shadow) {\n    return %1;\n}\n"
                                  "error_page %1 = @qs_shadow;\n")
                       .arg(kShadowRedirect);
        out += QLatin1Char('\n');
        out += limitReqs(true);
        out += QStringLiteral("limit_req_status %1;\n").arg(status);
        if (shadows)
            out += QStringLiteral("\nlocation @qs_shadow {\n") + limitReqs(false, 4)
                + QStringLiteral("    limit_req_status %1;\n    limit_req_dry_run on;\n"
                                 "    proxy_pass http://qs_backend;\n}\n")
                      .arg(status);
        return out;
    }

    // What NGINX answers with 400 before any limit, where the design would count the request:
    // stricter than the design, never a bypass, and said once per export (docs/exporters.md,
    // "Request forms"; the request fuzzer explains exactly these).
    void noteRefusedForms()
    {
        if (m_routes.empty())
            return;
        m_report.notePolicy(Diagnostic::Severity::Warning, QStringLiteral("routes"),
            QStringLiteral("NGINX answers ") + QString::number(kRefusedStatus)
                + QStringLiteral(
                    ", before any limit, to requests the design would "
                    "count: a method not in upper case, %00 in the path, a path whose "
                    "'..' climbs above '/', a header line over its 8 KiB buffer "
                    "(large_client_header_buffers); and this export refuses a path "
                    "holding an encoded slash beside a dot or empty segment, which NGINX "
                    "cannot resolve as the design does. Such clients are refused, never "
                    "let past a limit"));
    }

    // One limit_req per limit of the routes of the mode, most specific first, each under its
    // route's (and limit's) name.
    QString limitReqs(bool enforced, int indent = 0) const
    {
        const QString pad(indent, QLatin1Char(' '));
        QString out;
        for (const RouteExport &route : m_routes) {
            if (route.enforced() != enforced)
                continue;
            for (const LimitExport &e : route.limits) {
                // nginx refuses burst=0: that is its default, so leave it out.
                out += QStringLiteral("%1# route %2%6\n%1limit_req zone=%3%4%5;\n")
                           .arg(pad, ExportReport::commentSafe(e.route->id), e.zone,
                               e.burst > 0 ? QStringLiteral(" burst=%1").arg(e.burst) : QString(),
                               e.nodelay ? QStringLiteral(" nodelay") : QString(), whichLimit(e));
            }
        }
        return out;
    }

    // `text` with every line but the empty ones indented by `spaces`, appended to `out`.
    static void appendIndented(QByteArray &out, const QByteArray &text, int spaces)
    {
        for (qsizetype start = 0; start < text.size();) {
            qsizetype end = text.indexOf('\n', start);
            end = end < 0 ? text.size() : end + 1;
            if (text[start] != '\n')
                out.append(spaces, ' ');
            out.append(text.constData() + start, end - start);
            start = end;
        }
    }

    // Built in bytes from the snippets' bytes: at 100 000 routes the snippets are 40 MB, and
    // going back through QString::arg cost a fifth of the export.
    static QByteArray completeConfig(const QByteArray &http, const QByteArray &server)
    {
        QByteArray out;
        out.reserve(2048 + http.size() + http.size() / 4 + server.size() + server.size() / 2);
        out += "# Complete NGINX configuration generated by Quota Studio, for `nginx -t`\n"
               "# and demos: the limited server on 127.0.0.1:8080 proxies to a stand-in\n"
               "# backend on 127.0.0.1:8081 that answers 200.\n"
               "pid nginx.pid;\nerror_log error.log;\nevents {}\nhttp {\n"
               "    access_log off;\n";
        appendIndented(out, http, 4);
        out += "\n    upstream qs_backend {\n        server 127.0.0.1:8081;\n    }\n"
               "    server {\n        listen 127.0.0.1:8080;\n";
        appendIndented(out, server, 8);
        out += "\n        location / {\n            proxy_pass http://qs_backend;\n        }\n"
               "    }\n"
               "    server {\n        listen 127.0.0.1:8081;\n        return 200 \"ok\\n\";\n"
               "    }\n}\n";
        return out;
    }

    std::vector<RouteExport> m_routes;
    QByteArray m_http, m_server; // the snippets, for the complete configuration
    std::set<std::pair<QString, MissingKeyMode>> m_substitutes; // variable, fallback
    std::set<QString> m_presenceFlags;
    std::set<QString> m_queryNames;
    bool m_planned = false; // a zone is per plan: $qs_plan is needed
};

} // namespace

QStringList NginxExporter::suggestedFileNames() const
{
    return {QStringLiteral("qs-limits-http.conf"), QStringLiteral("qs-limits-server.conf"),
        QStringLiteral("nginx.conf")};
}

ExportResult NginxExporter::write(const Policy &policy) const
{
    return NginxWriter(policy, *this).run();
}

} // namespace qs
