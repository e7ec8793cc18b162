#include "model/policy/policyvalidator.h"

#include "model/policy/layoutpreset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/pathpattern.h"
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
        QList<std::optional<PathPattern>> patterns;
        for (qsizetype i = 0; i < m_policy.routes.size(); ++i)
            patterns.append(checkRoute(i));
        checkOverlaps(patterns);
        checkRedis();
        return m_out;
    }

private:
    bool hasErrorAt(const QString &prefix) const { return m_errorPaths.contains(prefix); }

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
        if (!hasErrorAt(routePath(i, QStringLiteral("limit")))
            && r.fieldOrder.contains(QLatin1String("limit")))
            checkLimit(i);
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

    void checkLimit(qsizetype i)
    {
        const Route &r = m_policy.routes[i];
        const auto converted = toAlgorithmConfig(r.limit());
        if (!converted) {
            error(i,
                converted.error().field.isEmpty()
                    ? QStringLiteral("limit")
                    : QStringLiteral("limit.") + converted.error().field,
                converted.error().message);
            return;
        }
        const auto &config = *converted;
        const qint64 maxCost = maxAdmissibleCost(config);
        if (r.effectiveCost() > maxCost)
            error(i, QStringLiteral("cost"),
                QStringLiteral("cost %1 is more than this limit can ever admit (%2): every "
                               "request would be denied; lower the cost or raise the limit")
                    .arg(r.effectiveCost())
                    .arg(maxCost));
        if (r.limit().algorithm == limiter::Algorithm::FixedWindow)
            warn(i, QStringLiteral("limit.algorithm"),
                // Any span of one window can hold two windows' quotas, and the two halves can
                // sit a moment apart: the bound is the window itself, not a fixed figure.
                QStringLiteral("fixed window %1 per %2: a client can send %1 just before a "
                               "window boundary and %1 just after, up to %3 requests within "
                               "any %2 and all of them moments apart; sliding_window_counter "
                               "smooths this at the same cost")
                    .arg(*r.limit().limit)
                    .arg(r.limit().window->text)
                    .arg(2 * *r.limit().limit));
        if (r.limit().algorithm == limiter::Algorithm::SlidingWindowLog && *r.limit().limit > kLargeLog)
            warn(i, QStringLiteral("limit.limit"),
                QStringLiteral("a sliding window log keeps one entry per admitted request: "
                               "up to %1 entries, about %2 KB of Redis memory per client key; "
                               "sliding_window_counter needs ~100 bytes")
                    .arg(*r.limit().limit)
                    .arg(qRound64(double(*r.limit().limit) * kLogBytesPerEntry / 1024.0)));
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
    QSet<QString> m_errorPaths;
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
