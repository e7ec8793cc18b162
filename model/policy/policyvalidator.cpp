#include "model/policy/policyvalidator.h"

#include "limiter/algorithms/admissionbound.h"

#include "model/policy/layoutpreset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
#include "model/policy/plans.h"
#include "model/policy/ratesyntax.h"

#include <QRegularExpression>
#include <QSet>

#include <unordered_map>

namespace qs {

namespace {

// Redis memory per sorted-set entry once a log leaves the compact encoding (measured with
// MEMORY USAGE on Redis 7.0: 118 KB for 1000 entries; see docs/algorithms.md).
constexpr double kLogBytesPerEntry = 118.0;
constexpr qint64 kLargeLog = 1000;

class Validator {
public:
    Validator(const Policy &policy, const QString &file, const Diagnostics &already)
        : m_policy(policy), m_file(file)
    {
        // Every field path with an error at or below it, so that asking costs one lookup
        // whatever the number of earlier findings.
        for (const Diagnostic &d : already) {
            if (d.severity != Diagnostic::Severity::Error)
                continue;
            QString path = d.path;
            m_errorsAt.insert(path);
            while (!path.isEmpty() && !m_errorPaths.contains(path)) {
                m_errorPaths.insert(path);
                const qsizetype cut = std::max(
                    path.lastIndexOf(QLatin1Char('.')), path.lastIndexOf(QLatin1Char('[')));
                path = cut > 0 ? path.left(cut) : QString();
            }
        }
    }

    Diagnostics run()
    {
        if (m_policy.routes.isEmpty() && !hasErrorAt(QStringLiteral("routes")))
            warn(QStringLiteral("routes"),
                QStringLiteral("the policy has no routes: nothing "
                               "is limited"));
        checkPlans();
        QList<std::optional<PathPattern>> patterns;
        for (qsizetype i = 0; i < m_policy.routes.size(); ++i)
            patterns.append(checkRoute(i));
        checkOverlaps(patterns);
        checkRedis();
        return m_out;
    }

private:
    bool hasErrorAt(const QString &prefix) const { return m_errorPaths.contains(prefix); }
    // An error about this very field, not one below it.
    bool hasErrorOn(const QString &path) const { return m_errorsAt.contains(path); }

    SourceLocation locate(QString path) const
    {
        while (!path.isEmpty()) {
            if (const auto at = m_policy.locations.find(path))
                return *at;
            const qsizetype cut
                = std::max(path.lastIndexOf(QLatin1Char('.')), path.lastIndexOf(QLatin1Char('[')));
            path = cut > 0 ? path.left(cut) : QString();
        }
        return {};
    }

    void add(
        Diagnostic::Severity severity, qsizetype route, const QString &path, const QString &message)
    {
        const SourceLocation at = locate(path);
        m_out.append(
            Diagnostic{severity, m_file, at.line, at.column, path, message, route, {}, {}});
    }
    // About the policy as a whole (`redis.prefix`, `routes`).
    void error(const QString &path, const QString &message)
    {
        add(Diagnostic::Severity::Error, -1, path, message);
    }
    void warn(const QString &path, const QString &message)
    {
        add(Diagnostic::Severity::Warning, -1, path, message);
    }
    // About a field of route `route` ("limit.capacity").
    void error(qsizetype route, const QString &field, const QString &message)
    {
        add(Diagnostic::Severity::Error, route, routePath(route, field), message);
    }
    void warn(qsizetype route, const QString &field, const QString &message)
    {
        add(Diagnostic::Severity::Warning, route, routePath(route, field), message);
    }

    std::optional<PathPattern> checkRoute(qsizetype i)
    {
        const Route &r = m_policy.routes[i];
        checkId(i);
        std::optional<PathPattern> pattern;
        // An empty path that is written down is checked (and refused) like any other; only a
        // missing one is left to the reader, which already said so.
        if (!r.path.isEmpty() || r.matchFieldOrder.contains(QStringLiteral("path"))) {
            const auto parsed = PathPattern::parse(r.path);
            if (!parsed)
                error(i, QStringLiteral("match.path"), parsed.error());
            else
                pattern = *parsed;
        }
        if (r.fieldOrder.contains(QLatin1String("limit"))
            || r.fieldOrder.contains(QLatin1String("limits")))
            checkLimits(i);
        if (r.missingKey && !keyCanBeMissing(m_policy.keyOf(r)))
            warn(i, QStringLiteral("missing_key"),
                QStringLiteral("missing_key has no effect on route '%1': its key has no header "
                               "or query part a request could lack")
                    .arg(r.id));
        if (r.effectiveMode() == RouteMode::Shadow)
            warn(i, QStringLiteral("mode"),
                QStringLiteral("route '%1' is in shadow mode: requests over the limit are "
                               "counted and reported, never rejected")
                    .arg(r.id));
        return pattern;
    }

    void checkId(qsizetype i)
    {
        const Route &r = m_policy.routes[i];
        const QString id = QStringLiteral("id");
        if (!r.fieldOrder.contains(id) || hasErrorAt(routePath(i, id)))
            return;
        static const QRegularExpression idSyntax(
            QStringLiteral("^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"));
        if (!idSyntax.match(r.id).hasMatch()) {
            error(i, id,
                QStringLiteral("route id '%1' must be 1-64 letters, digits, '_', '.' or "
                               "'-', starting with a letter or digit (ids become zone, "
                               "table and key names in gateway configs)")
                    .arg(r.id));
            return;
        }
        const auto [first, fresh] = m_firstWithId.try_emplace(r.id, i);
        if (fresh)
            return;
        // Both routes hear of it: the one being edited may be either.
        const qsizetype j = first->second;
        error(i, id,
            QStringLiteral("duplicate route id '%1' (also used at line %2): "
                           "give each route its own id")
                .arg(r.id)
                .arg(locate(routePath(j, id)).line));
        if (m_reportedDuplicate.contains(j))
            return;
        m_reportedDuplicate.insert(j);
        error(j, id,
            QStringLiteral("duplicate route id '%1' (also used at line %2): "
                           "give each route its own id")
                .arg(r.id)
                .arg(locate(routePath(i, id)).line));
    }

    void checkLimits(qsizetype i)
    {
        const Route &r = m_policy.routes[i];
        if (hasErrorOn(routePath(i, QStringLiteral("limits"))))
            return; // no list the reader could take
        if (r.limits.size() > RouteLimit::kMaxLimits) { // made in code: the reader caps files
            error(i, QStringLiteral("limits"),
                QStringLiteral("%1 limits on one route; at most %2")
                    .arg(r.limits.size())
                    .arg(RouteLimit::kMaxLimits));
            return;
        }
        std::vector<std::optional<limiter::AlgorithmConfig>> configs;
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            configs.push_back(
                hasErrorAt(routePath(i, r.limitPath(l))) ? std::nullopt : checkLimit(i, l));
            if (configs.back())
                checkLimitPlans(i, l);
            if (r.writtenAsList())
                checkLimitName(i, l);
        }
        for (qsizetype a = 0; a < r.limits.size(); ++a)
            for (qsizetype b = 0; b < r.limits.size(); ++b)
                if (a != b && configs[a] && configs[b])
                    checkBinds(i, a, *configs[a], b, *configs[b]);
    }

    void checkLimitName(qsizetype i, qsizetype l)
    {
        const Route &r = m_policy.routes[i];
        const QString field = r.limitPath(l) + QStringLiteral(".name");
        if (hasErrorAt(routePath(i, field))
            || !r.limits[l].spec.fieldOrder.contains(QStringLiteral("name")))
            return;
        const QString &name = r.limits[l].name;
        if (!isValidLimitName(name)) {
            error(i, field,
                QStringLiteral("limit name '%1' must be 1-%2 letters, digits, '_', '.' or '-', "
                               "starting with a letter or digit (names become zone, table and "
                               "header item names)")
                    .arg(name)
                    .arg(RouteLimit::kMaxNameLength));
            return;
        }
        for (qsizetype k = 0; k < l; ++k)
            if (r.limits[k].name == name) {
                error(i, field,
                    QStringLiteral("route '%1' has two limits named '%2' (the other at line %3): "
                                   "give each limit of a route its own name")
                        .arg(r.id, name)
                        .arg(locate(routePath(i, r.limitPath(k) + QStringLiteral(".name"))).line));
                return;
            }
    }

    std::optional<limiter::AlgorithmConfig> checkLimit(qsizetype i, qsizetype l)
    {
        const Route &r = m_policy.routes[i];
        const RouteLimit &limit = r.limits[l];
        const LimitSpec &spec = limit.spec;
        const QString at = r.limitPath(l);
        const auto field = [&](const QString &name) { return at + QLatin1Char('.') + name; };
        const auto converted = toAlgorithmConfig(spec);
        if (!converted) {
            error(i, converted.error().field.isEmpty() ? at : field(converted.error().field),
                converted.error().message);
            return std::nullopt;
        }
        const auto &config = *converted;
        const qint64 maxCost = maxAdmissibleCost(config);
        const qint64 cost = r.costOf(limit);
        if (cost > maxCost)
            error(i, limit.cost ? field(QStringLiteral("cost")) : QStringLiteral("cost"),
                QStringLiteral("cost %1 is more than %2 can ever admit (%3): every "
                               "request would be denied; lower the cost or raise the limit")
                    .arg(cost)
                    .arg(r.writtenAsList() ? QStringLiteral("limit '%1'").arg(limit.name)
                                           : QStringLiteral("this limit"))
                    .arg(maxCost));
        if (limit.mode == RouteMode::Shadow && spec.mode == limiter::LeakMode::Shape)
            error(i, field(QStringLiteral("mode")),
                QStringLiteral("a shadow limit never holds a request back, so it cannot shape: "
                               "make it enforce, or let it police"));
        if (spec.algorithm == limiter::Algorithm::FixedWindow)
            warn(i, field(QStringLiteral("algorithm")),
                // Any span of one window can hold two windows' quotas, and the two halves can
                // sit a moment apart: the bound is the window itself, not a fixed figure.
                QStringLiteral("fixed window %1 per %2: a client can send %1 just before a "
                               "window boundary and %1 just after, up to %3 requests within "
                               "any %2 and all of them moments apart; sliding_window_counter "
                               "smooths this at the same cost")
                    .arg(*spec.limit)
                    .arg(windowDescription(spec))
                    .arg(2 * *spec.limit));
        if (spec.algorithm == limiter::Algorithm::SlidingWindowLog && *spec.limit > kLargeLog)
            warn(i, field(QStringLiteral("limit")),
                QStringLiteral("a sliding window log keeps one entry per admitted request: "
                               "up to %1 entries, about %2 KB of Redis memory per client key; "
                               "sliding_window_counter needs ~100 bytes")
                    .arg(*spec.limit)
                    .arg(qRound64(double(*spec.limit) * kLogBytesPerEntry / 1024.0)));
        if (r.writtenAsList() && r.modeOf(limit) == RouteMode::Shadow
            && r.effectiveMode() == RouteMode::Enforce)
            warn(i, field(QStringLiteral("mode")),
                QStringLiteral("limit '%1' of route '%2' is in shadow mode: requests over it "
                               "are counted and reported, never rejected")
                    .arg(limit.name, r.id));
        return config;
    }

    // `plans:` names its plans once; the default is one of them.
    void checkPlans()
    {
        const PlanSettings &p = m_policy.plans;
        const QString at = QStringLiteral("plans.default");
        if (!p.present || !p.defaultPlan || hasErrorAt(at) || p.names.isEmpty())
            return;
        if (!p.names.contains(*p.defaultPlan))
            error(at,
                QStringLiteral("the default plan '%1' is not one of plans.names (%2): name one of "
                               "them, usually the most restricted")
                    .arg(*p.defaultPlan, p.names.join(QStringLiteral(", "))));
    }

    // A limit's per-plan numbers: for declared plans, each plan's limit valid on its own.
    void checkLimitPlans(qsizetype i, qsizetype l)
    {
        const Route &r = m_policy.routes[i];
        const RouteLimit &limit = r.limits[l];
        const PlanSettings &plans = m_policy.plans;
        const QString limitAt = r.limitPath(l);
        const QString which = r.writtenAsList() ? QStringLiteral("limit '%1'").arg(limit.name)
                                                : QStringLiteral("the limit");
        for (const PlanLimit &own : limit.plans) {
            const QString at = limitAt + QStringLiteral(".plans.") + own.plan;
            if (hasErrorAt(routePath(i, at)))
                continue;
            if (!plans.present) {
                error(i, at,
                    QStringLiteral("%1 has numbers for plan '%2', but the policy declares no "
                                   "plans: add `plans: { names: [free, %2], from: header:X-Plan }`")
                        .arg(which, own.plan));
                return;
            }
            if (!plans.names.contains(own.plan)) {
                error(i, at,
                    QStringLiteral("'%1' is not a plan of this policy (plans.names: %2): use one "
                                   "of them, or declare it")
                        .arg(own.plan, plans.names.join(QStringLiteral(", "))));
                continue;
            }
            if (own.unlimited)
                continue;
            if (own.spec.fieldOrder.isEmpty()) {
                warn(i, at,
                    QStringLiteral("plan '%1' gives %2 no numbers of its own, so it has the "
                                   "limit's: set the numbers that differ, or remove the entry")
                        .arg(own.plan, which));
                continue;
            }
            const auto converted = toAlgorithmConfig(*specForPlan(limit, own.plan));
            if (!converted) {
                // A plan's own field when it set the faulty one, else the plan's entry.
                const QString field = converted.error().field;
                error(i, own.spec.fieldOrder.contains(field) ? at + QLatin1Char('.') + field : at,
                    QStringLiteral("on plan '%1': %2").arg(own.plan, converted.error().message));
                continue;
            }
            const qint64 maxCost = maxAdmissibleCost(*converted);
            if (r.costOf(limit) > maxCost)
                error(i, at,
                    QStringLiteral("cost %1 is more than %2 admits on plan '%3' (%4): every "
                                   "request on that plan would be denied")
                        .arg(r.costOf(limit))
                        .arg(which, own.plan)
                        .arg(maxCost));
        }
        const PlanLimit *fallback = limit.planLimit(plans.effectiveDefault());
        if (plans.present && fallback && fallback->unlimited)
            warn(i, limitAt + QStringLiteral(".plans.") + fallback->plan,
                QStringLiteral("'%1' is the default plan, and it is unlimited here: a request "
                               "with a missing or unknown plan skips %2; make the default the "
                               "most restricted plan")
                    .arg(fallback->plan, which));
    }

    // A window quota `a` can never deny when limit `b`, on the same key and cost, never lets a
    // client reach it: `b` admits at most `a`'s quota within any span that `a` counts over.
    void checkBinds(qsizetype i, qsizetype a, const limiter::AlgorithmConfig &quota, qsizetype b,
        const limiter::AlgorithmConfig &other)
    {
        const Route &r = m_policy.routes[i];
        const RouteLimit &la = r.limits[a];
        const RouteLimit &lb = r.limits[b];
        if (r.modeOf(lb) != RouteMode::Enforce || r.costOf(la) != r.costOf(lb)
            || m_policy.keyOf(r, la) != m_policy.keyOf(r, lb))
            return;
        const auto *window = std::get_if<limiter::FixedWindowConfig>(&quota);
        limiter::Micros span = 0;
        limiter::WindowLimit w;
        if (window) {
            w = *window;
            // A calendar window is as long as its longest instance (31 days and an hour).
            span = window->calendar && window->calendar->zoned()
                ? limiter::longestLength(window->calendar->zoned()->unit())
                : w.window;
        } else if (const auto *log = std::get_if<limiter::SlidingWindowLogConfig>(&quota)) {
            w = *log;
            span = w.window;
        } else if (const auto *counter = std::get_if<limiter::SlidingWindowCounterConfig>(&quota)) {
            w = *counter;
            span = 2 * w.window; // its estimate weighs in the window before
        } else {
            return;
        }
        const std::int64_t most = limiter::admissionBound(other, span);
        if (most > w.limit)
            return;
        warn(i, r.limitPath(a) + QStringLiteral(".limit"),
            QStringLiteral("limit '%1' (%2 per %3) can never deny: limit '%4' admits at most %5 "
                           "requests of one client within %6; lower '%1' or drop it")
                .arg(la.name)
                .arg(w.limit)
                .arg(windowDescription(la.spec))
                .arg(lb.name)
                .arg(most)
                .arg(window && window->calendar ? formatDurationInWords(span)
                        : span == w.window      ? windowDescription(la.spec)
                                                : QStringLiteral("two windows")));
    }

    static bool methodsOverlap(const QStringList &a, const QStringList &b)
    {
        if (a.isEmpty() || b.isEmpty())
            return true;
        for (const QString &m : a)
            if (b.contains(m))
                return true;
        return false;
    }

    static bool methodsCover(const QStringList &outer, const QStringList &inner)
    {
        if (outer.isEmpty())
            return true;
        if (inner.isEmpty())
            return false;
        for (const QString &m : inner)
            if (!outer.contains(m))
                return false;
        return true;
    }

    // Equally specific patterns have the same kinds of segment in the same order; overlapping
    // ones also the same text where both are literal. So only patterns of one shape (literal
    // text kept, `*` and `{name}` alike) can be ambiguous: comparing within shapes keeps this
    // linear in routes where comparing every pair was quadratic.
    static QString shapeOf(const PathPattern &p)
    {
        QString shape;
        for (const PathPattern::Segment &s : p.segments()) {
            switch (s.kind) {
            case PathPattern::SegmentKind::Literal:
                shape += QLatin1Char('/') + s.text; // literal text never holds '/' or '*'
                break;
            case PathPattern::SegmentKind::Param:
            case PathPattern::SegmentKind::Star:
                shape += QStringLiteral("/*");
                break;
            case PathPattern::SegmentKind::DoubleStar:
                shape += QStringLiteral("/**");
                break;
            }
        }
        return shape;
    }

    void checkOverlaps(const QList<std::optional<PathPattern>> &patterns)
    {
        std::unordered_map<QString, std::vector<qsizetype>> byShape;
        for (qsizetype j = 0; j < patterns.size(); ++j) {
            if (!patterns[j])
                continue;
            std::vector<qsizetype> &same = byShape[shapeOf(*patterns[j])];
            same.push_back(j);
            for (const qsizetype i : same) {
                if (i == j)
                    continue;
                const Route &a = m_policy.routes[i];
                const Route &b = m_policy.routes[j];
                if (!methodsOverlap(a.methods, b.methods)
                    || PathPattern::compareSpecificity(*patterns[i], *patterns[j]) != 0
                    || !PathPattern::overlap(*patterns[i], *patterns[j]))
                    continue;
                const QString at = QStringLiteral("match.path");
                const int line = locate(routePath(i, at)).line;
                if (patterns[i]->segments() == patterns[j]->segments()
                    && methodsCover(a.methods, b.methods))
                    warn(j, at,
                        QStringLiteral("route '%1' can never match: route '%2' (line %3) "
                                       "has the same path and takes all its methods first")
                            .arg(b.id, a.id)
                            .arg(line));
                else
                    error(j, at,
                        QStringLiteral("routes '%1' and '%2' (line %3) are equally specific "
                                       "and both match some requests: make one path more "
                                       "specific or split their methods")
                            .arg(b.id, a.id)
                            .arg(line));
            }
        }
    }

    void checkRedis()
    {
        const RedisSettings &r = m_policy.redis;
        static const QRegularExpression prefixSyntax(QStringLiteral("^[A-Za-z0-9_.:-]{1,64}$"));
        if (r.prefix && !prefixSyntax.match(*r.prefix).hasMatch())
            error(QStringLiteral("redis.prefix"),
                QStringLiteral("prefix '%1' must be 1-64 letters, digits or _.:- (it starts "
                               "every Redis key name; a {hash tag} would put every key in one "
                               "Redis Cluster slot)")
                    .arg(*r.prefix));
        for (qsizetype i = 0; i < r.layouts.size(); ++i) {
            const RedisLayout &l = r.layouts[i];
            const QString path = QStringLiteral("redis.layouts[%1]").arg(i);
            if (!l.routeId.isEmpty() && !m_policy.route(l.routeId))
                error(path + QStringLiteral(".route"),
                    QStringLiteral("no route has the id '%1'").arg(l.routeId));
            validateLayoutPreset(l, path);
            if (!l.keyTemplate.isEmpty() && !l.keyTemplate.contains(QStringLiteral("{key}")))
                error(path + QStringLiteral(".key"),
                    QStringLiteral("the key template must contain {key}, where the client's "
                                   "key goes (e.g. \"ratelimit:{key}\")"));
        }
    }

    // The preset must fit the route: its keys hold one algorithm's state, and a preset without
    // a default key needs the layout's own.
    void validateLayoutPreset(const RedisLayout &l, const QString &path)
    {
        const LayoutPreset *preset
            = layoutPreset(l.preset.value_or(QString::fromLatin1(kDefaultLayoutPreset)));
        if (!preset)
            return; // the reader already said the name is unknown
        if (l.keyTemplate.isEmpty() && preset->defaultKey.isEmpty())
            error(path + QStringLiteral(".key"),
                QStringLiteral("the %1 preset has no usual key name: give the key template, "
                               "e.g. key: \"apis_remote_address_{key}\"")
                    .arg(preset->name));
        if (l.refill && preset->name != QLatin1String(kDefaultLayoutPreset))
            error(path + QStringLiteral(".refill"),
                QStringLiteral("only the tutorial-hash preset reads a refill model; the %1 preset "
                               "follows its system's own clock")
                    .arg(preset->name));
        const Route *route = m_policy.route(l.routeId);
        if (route && route->hasSeveralLimits()) {
            error(path + QStringLiteral(".route"),
                QStringLiteral("route '%1' has %2 limits, and a layout of another system reads "
                               "one limit's state per key: give the route one limit, or let "
                               "Quota Studio's own keys hold its limits (no layout)")
                    .arg(l.routeId)
                    .arg(route->limits.size()));
            return;
        }
        if (!route || preset->algorithms.contains(route->limit().algorithm))
            return;
        QStringList names;
        for (limiter::Algorithm a : preset->algorithms)
            names << QString::fromUtf8(limiter::algorithmName(a));
        error(path + QStringLiteral(".preset"),
            QStringLiteral("the %1 preset reads %2 state, but route '%3' uses %4: give the "
                           "route the limit the deployment enforces")
                .arg(preset->name, names.join(QStringLiteral(" or ")), l.routeId,
                    QString::fromUtf8(limiter::algorithmName(route->limit().algorithm))));
    }

    const Policy &m_policy;
    const QString &m_file;
    QSet<QString> m_errorPaths; // where errors are, and every field above them
    QSet<QString> m_errorsAt;
    std::unordered_map<QString, qsizetype> m_firstWithId;
    QSet<qsizetype> m_reportedDuplicate;
    Diagnostics m_out;
};

} // namespace

Diagnostics validatePolicy(
    const Policy &policy, const QString &fileName, const Diagnostics &already)
{
    return Validator(policy, fileName, already).run();
}

} // namespace qs
