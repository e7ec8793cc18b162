#include "model/policy/policyreader.h"

#include "model/base/shares.h"
#include "model/policy/keyselectorsyntax.h"
#include "model/policy/layoutpreset.h"
#include "model/policy/limitconversion.h"
#include "model/policy/limitfields.h"
#include "model/policy/plans.h"
#include "model/policy/policyvalidator.h"
#include "model/policy/ratesyntax.h"
#include "model/policy/yamldocument.h"

#include <QFile>
#include <QRegularExpression>

#include <memory>
#include <vector>

namespace qs {

namespace {

// Edit distance, for "did you mean" on misspelt field names.
int editDistance(const QString &a, const QString &b)
{
    QList<int> row(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        row[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int above = row[j];
            row[j]
                = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

QString closest(const QString &word, const QStringList &candidates)
{
    QString best;
    int bestDistance = std::max<int>(2, int(word.size()) / 3) + 1;
    for (const QString &c : candidates) {
        const int d = editDistance(word.toLower(), c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

// Walks the YAML tree with a field path, recording locations and collecting diagnostics.
class Reader {
public:
    Reader(const QString &file, PolicyReadResult &result)
        : m_file(file), m_policy(result.policy), m_diagnostics(result.diagnostics)
    {
    }

    void readRoot(const YamlNode &root);

private:
    void error(const YamlNode &at, const QString &path, const QString &message)
    {
        report(Diagnostic::Severity::Error, at.mark(), path, message);
        if (m_route && at.isScalar() && path.startsWith(m_routePrefix))
            m_route->origin.invalidText.insert(
                path.mid(m_routePrefix.size()), QString::fromStdString(at.scalar()));
    }
    void report(Diagnostic::Severity severity, const YamlMark &mark, const QString &path,
        const QString &message)
    {
        const bool inRoute = m_route
            && (path.startsWith(m_routePrefix) || path + QLatin1Char('.') == m_routePrefix);
        const qsizetype route = inRoute ? m_routeIndex : -1;
        m_diagnostics.append(Diagnostic{
            severity, m_file, mark.line + 1, mark.column + 1, path, message, route, {}, {}});
    }

    static QString child(const QString &path, const QString &key)
    {
        return path.isEmpty() ? key : path + QLatin1Char('.') + key;
    }

    // The map's keys in file order; unknown keys are errors with a suggestion.
    QStringList keysOf(
        const YamlNode &map, const QString &path, const QStringList &allowed, const QString &what)
    {
        QStringList keys;
        for (std::size_t i = 0; i < map.size(); ++i) {
            const YamlNode name = map.key(i);
            if (!name.isScalar()) {
                error(name, path, QStringLiteral("field names are plain words"));
                continue;
            }
            const QString key = QString::fromStdString(name.scalar());
            if (keys.contains(key)) {
                error(name, child(path, key),
                    QStringLiteral("`%1` appears twice in %2: keep one").arg(key, what));
                continue;
            }
            if (!allowed.contains(key)) {
                const QString suggestion = closest(key, allowed);
                error(name, child(path, key),
                    suggestion.isEmpty()
                        ? QStringLiteral("unknown field `%1` in %2; known fields: %3")
                              .arg(key, what, allowed.join(QStringLiteral(", ")))
                        : QStringLiteral("unknown field `%1` in %2; did you mean `%3`?")
                              .arg(key, what, suggestion));
                continue;
            }
            keys.append(key);
        }
        return keys;
    }

    bool expectMap(const YamlNode &node, const QString &path, const QString &what)
    {
        if (node.isMap())
            return true;
        error(node, path, QStringLiteral("%1 must be a mapping of `field: value` lines").arg(what));
        return false;
    }

    void requireField(const YamlNode &map, const QStringList &keys, const QString &path,
        const QString &field, const QString &example)
    {
        if (!keys.contains(field))
            error(map, child(path, field),
                QStringLiteral("missing `%1`: add it, e.g. `%1: %2`").arg(field, example));
    }

    std::optional<QString> text(const YamlNode &node, const QString &path)
    {
        if (node.isScalar())
            return QString::fromStdString(node.scalar());
        error(node, path,
            QStringLiteral("expected text here, not a %1")
                .arg(node.isMap()           ? QStringLiteral("mapping")
                        : node.isSequence() ? QStringLiteral("list")
                                            : QStringLiteral("blank")));
        return std::nullopt;
    }

    std::optional<qint64> integer(const YamlNode &node, const QString &path, qint64 min, qint64 max)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        bool ok = false;
        const qint64 n = value->trimmed().toLongLong(&ok);
        if (!ok) {
            error(node, path, QStringLiteral("expected a whole number, got '%1'").arg(*value));
            return std::nullopt;
        }
        if (n < min || n > max) {
            const QString field = path.mid(path.lastIndexOf(QLatin1Char('.')) + 1);
            error(node, path,
                QStringLiteral("%1 %2 is out of range: use a number from %3 to %4")
                    .arg(field)
                    .arg(n)
                    .arg(min)
                    .arg(max));
            return std::nullopt;
        }
        return n;
    }

    std::optional<bool> boolean(const YamlNode &node, const QString &path)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        const QString v = value->toLower();
        if (v == QLatin1String("true") || v == QLatin1String("yes") || v == QLatin1String("on"))
            return true;
        if (v == QLatin1String("false") || v == QLatin1String("no") || v == QLatin1String("off"))
            return false;
        error(node, path, QStringLiteral("expected true or false, got '%1'").arg(*value));
        return std::nullopt;
    }

    // One of `choices` (case-insensitive); index into choices.
    std::optional<int> choice(const YamlNode &node, const QString &path, const QStringList &choices)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        const qsizetype i = choices.indexOf(value->toLower());
        if (i >= 0)
            return int(i);
        const QString suggestion = closest(*value, choices);
        error(node, path,
            QStringLiteral("'%1' is not one of %2%3")
                .arg(*value, choices.join(QStringLiteral(", ")),
                    suggestion.isEmpty() ? QString()
                                         : QStringLiteral("; did you mean '%1'?").arg(suggestion)));
        return std::nullopt;
    }

    // An IANA zone that this machine's zone files have (what a decision will use).
    std::optional<QString> timeZone(const YamlNode &node, const QString &path)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        std::string why;
        if (!limiter::calendar::TimeZone::load(value->toStdString(), why)) {
            error(node, path, QString::fromStdString(why));
            return std::nullopt;
        }
        return value;
    }

    std::optional<RateValue> rate(const YamlNode &node, const QString &path)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        const auto parsed = parseRate(*value);
        if (!parsed) {
            error(node, path, parsed.error());
            return std::nullopt;
        }
        return RateValue{*value, *parsed};
    }

    std::optional<DurationValue> duration(const YamlNode &node, const QString &path)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        const auto parsed = parseDuration(*value);
        if (!parsed) {
            error(node, path, parsed.error());
            return std::nullopt;
        }
        return DurationValue{*value, *parsed};
    }

    std::optional<QList<KeySelector>> keySelectors(const YamlNode &node, const QString &path)
    {
        QList<KeySelector> selectors;
        auto one = [&](const YamlNode &item, const QString &itemPath) {
            const auto value = text(item, itemPath);
            if (!value)
                return;
            const auto parsed = parseKeySelector(*value);
            if (!parsed)
                error(item, itemPath, parsed.error());
            else
                selectors.append(*parsed);
        };
        if (node.isSequence()) {
            if (node.size() == 0) {
                error(node, path,
                    QStringLiteral("an empty key list counts nobody: name at "
                                   "least one of ip, header:<Name>, "
                                   "query:<name>, global"));
                return std::nullopt;
            }
            for (std::size_t i = 0; i < node.size(); ++i)
                one(node[i], QStringLiteral("%1[%2]").arg(path).arg(i));
        } else {
            one(node, path);
        }
        return selectors;
    }

    // One key part (`header:X-Plan`), or nullopt after an error.
    std::optional<KeySelector> keySelector(const YamlNode &node, const QString &path)
    {
        const auto value = text(node, path);
        if (!value)
            return std::nullopt;
        const auto parsed = parseKeySelector(*value);
        if (!parsed) {
            error(node, path, parsed.error());
            return std::nullopt;
        }
        return *parsed;
    }

    void readDefaults(const YamlNode &node);
    void readRedis(const YamlNode &node);
    void readPlans(const YamlNode &node);
    void readPlanNames(const YamlNode &node, const QString &path);
    void readPlanSource(const YamlNode &node, const QString &path);
    void readLimitPlans(const YamlNode &node, const QString &path, RouteLimit &limit);
    void readLimitValue(
        const LimitField &field, const YamlNode &value, const QString &path, LimitSpec &limit);
    void readRoutes(const YamlNode &list, std::size_t count);
    void readRoute(const YamlNode &node, std::size_t index, Route &route);
    void readRoute(const YamlNode &node, const QString &path, Route &route);
    void readMatch(const YamlNode &node, const QString &path, Route &route);
    void readLimit(const YamlNode &node, const QString &path, RouteLimit &limit, bool item);
    void readLimitList(const YamlNode &node, const QString &path, Route &route);
    static bool isItemField(const QString &key);
    void readItemField(
        const QString &key, const YamlNode &value, const QString &path, RouteLimit &limit);
    bool readItemMode(const YamlNode &value, const QString &path, RouteLimit &limit,
        limiter::Algorithm algorithm);

    QString m_file;
    // The route being read and its path prefix: refused values are kept in its origin.
    Route *m_route = nullptr;
    qsizetype m_routeIndex = -1;
    QString m_routePrefix;
    Policy &m_policy;
    Diagnostics &m_diagnostics;
};

void Reader::readRoot(const YamlNode &root)
{
    if (!root.isMap()) {
        error(root, QString(),
            QStringLiteral("a policy is a mapping with at least "
                           "`quota_studio: 1`, `name:` and `routes:`"));
        return;
    }
    const QStringList keys = keysOf(root, QString(),
        {QStringLiteral("quota_studio"), QStringLiteral("name"), QStringLiteral("description"),
            QStringLiteral("defaults"), QStringLiteral("redis"), QStringLiteral("plans"),
            QStringLiteral("routes")},
        QStringLiteral("the policy"));
    m_policy.fieldOrder = keys;
    requireField(root, keys, QString(), QStringLiteral("quota_studio"), QStringLiteral("1"));
    requireField(root, keys, QString(), QStringLiteral("name"), QStringLiteral("public-api"));
    requireField(root, keys, QString(), QStringLiteral("routes"),
        QStringLiteral("[ ... ] (a list of routes)"));
    for (const QString &key : keys) {
        const YamlNode value = root.find(key.toStdString());
        if (key == QLatin1String("quota_studio")) {
            if (auto v = integer(value, key, 1, 1'000'000)) {
                m_policy.formatVersion = int(*v);
                if (*v > kNewestPolicyFormat)
                    error(value, key,
                        QStringLiteral("this file is format %1; this Quota Studio reads up to "
                                       "%2: upgrade Quota Studio")
                            .arg(*v)
                            .arg(kNewestPolicyFormat));
            }
        } else if (key == QLatin1String("name")) {
            m_policy.name = text(value, key).value_or(QString());
        } else if (key == QLatin1String("description")) {
            m_policy.description = text(value, key).value_or(QString());
        } else if (key == QLatin1String("defaults")) {
            readDefaults(value);
        } else if (key == QLatin1String("redis")) {
            readRedis(value);
        } else if (key == QLatin1String("plans")) {
            readPlans(value);
        } else if (key == QLatin1String("routes")) {
            if (!value.isSequence()) {
                error(value, key,
                    QStringLiteral("routes must be a list: each route starts "
                                   "with `- id: …`"));
                continue;
            }
            if (value.size() > std::size_t(kMaxRoutes))
                error(value, key,
                    QStringLiteral("%1 routes: Quota Studio reads at most %2 per policy; split "
                                   "it into several files (one per gateway or service)")
                        .arg(value.size())
                        .arg(kMaxRoutes));
            readRoutes(value, std::min(value.size(), std::size_t(kMaxRoutes)));
        }
    }
}

// Many routes are read on every core: a route's reading looks at its own node only, and each
// share reports to a reader of its own; routes and findings are appended in file order, so the
// result is that of reading them one after another.
void Reader::readRoutes(const YamlNode &list, std::size_t count)
{
    std::vector<Route> routes(count);
    for (Route &route : routes)
        route.origin.uid = nextRouteUid(); // in file order, as one reader numbers them
    const std::size_t shares = shareCount(count, 5000);
    std::vector<PolicyReadResult> helpers(shares);
    runShares(shares, [&](std::size_t share) {
        const auto readShare = [&](Reader &reader) {
            for (std::size_t i = shareBegin(count, shares, share);
                 i < shareBegin(count, shares, share + 1); ++i)
                reader.readRoute(list[i], i, routes[i]);
        };
        if (share == 0) {
            readShare(*this);
        } else {
            Reader helper(m_file, helpers[share]);
            readShare(helper);
        }
    });
    for (std::size_t share = 1; share < shares; ++share)
        m_diagnostics.append(helpers[share].diagnostics);
    m_policy.routes.reserve(qsizetype(count));
    for (Route &route : routes)
        m_policy.routes.append(std::move(route));
}

void Reader::readRoute(const YamlNode &node, std::size_t index, Route &route)
{
    const QString path = routePath(qsizetype(index));
    m_route = &route;
    m_routeIndex = qsizetype(index);
    m_routePrefix = path + QLatin1Char('.');
    readRoute(node, path, route);
    m_route = nullptr;
}

void Reader::readDefaults(const YamlNode &node)
{
    const QString path = QStringLiteral("defaults");
    m_policy.defaultsPresent = true;
    if (!expectMap(node, path, QStringLiteral("defaults")))
        return;
    Defaults &d = m_policy.defaults;
    d.fieldOrder = keysOf(node, path,
        {QStringLiteral("key"), QStringLiteral("missing_key"), QStringLiteral("status"),
            QStringLiteral("on_store_error"), QStringLiteral("headers")},
        QStringLiteral("defaults"));
    for (const QString &key : d.fieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString p = child(path, key);
        if (key == QLatin1String("key")) {
            d.key = keySelectors(value, p);
        } else if (key == QLatin1String("missing_key")) {
            if (auto v = choice(value, p, missingKeyModeNames()))
                d.missingKey = MissingKeyMode(*v);
        } else if (key == QLatin1String("status")) {
            if (auto v = integer(value, p, 400, 599))
                d.status = int(*v);
        } else if (key == QLatin1String("on_store_error")) {
            if (auto v = choice(value, p, {QStringLiteral("allow"), QStringLiteral("deny")}))
                d.onStoreError
                    = *v == 0 ? limiter::StoreErrorPolicy::Allow : limiter::StoreErrorPolicy::Deny;
        } else if (key == QLatin1String("headers")) {
            const QStringList styles = {QStringLiteral("none"), QStringLiteral("draft"),
                QStringLiteral("x-ratelimit"), QStringLiteral("both")};
            if (auto v = choice(value, p, styles))
                d.headers = limiter::HeaderStyle(*v);
        }
    }
}

void Reader::readPlans(const YamlNode &node)
{
    const QString path = QStringLiteral("plans");
    PlanSettings &p = m_policy.plans;
    p.present = true;
    if (!expectMap(node, path, QStringLiteral("plans")))
        return;
    p.fieldOrder = keysOf(node, path,
        {QStringLiteral("names"), QStringLiteral("from"), QStringLiteral("default")},
        QStringLiteral("plans"));
    requireField(node, p.fieldOrder, path, QStringLiteral("names"),
        QStringLiteral("[free, pro, enterprise]"));
    requireField(node, p.fieldOrder, path, QStringLiteral("from"), QStringLiteral("header:X-Plan"));
    for (const QString &key : p.fieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString at = child(path, key);
        if (key == QLatin1String("names"))
            readPlanNames(value, at);
        else if (key == QLatin1String("from"))
            readPlanSource(value, at);
        else if (key == QLatin1String("default"))
            p.defaultPlan = text(value, at);
    }
}

void Reader::readPlanNames(const YamlNode &node, const QString &path)
{
    PlanSettings &p = m_policy.plans;
    if (!node.isSequence() || node.size() == 0) {
        error(node, path,
            QStringLiteral("`names` lists the plans, most restricted first: "
                           "`names: [free, pro, enterprise]`"));
        return;
    }
    if (node.size() > std::size_t(PlanSettings::kMaxPlans)) {
        error(node, path,
            QStringLiteral("%1 plans; at most %2 (each plan of a planned limit is a zone or a "
                           "table in the gateway's config)")
                .arg(node.size())
                .arg(PlanSettings::kMaxPlans));
        return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
        const QString at = QStringLiteral("%1[%2]").arg(path).arg(i);
        const auto name = text(node[i], at);
        if (!name)
            continue;
        if (!isValidLimitName(*name)) {
            error(node[i], at,
                QStringLiteral("plan name '%1' must be 1-%2 letters, digits, '_', '.' or '-', "
                               "starting with a letter or digit (plan names become key parts and "
                               "zone names)")
                    .arg(*name)
                    .arg(RouteLimit::kMaxNameLength));
            continue;
        }
        if (p.names.contains(*name)) {
            error(node[i], at, QStringLiteral("plan '%1' is listed twice: keep one").arg(*name));
            continue;
        }
        p.names.append(*name);
    }
}

void Reader::readPlanSource(const YamlNode &node, const QString &path)
{
    PlanSettings &p = m_policy.plans;
    if (node.isScalar()) {
        const auto from = keySelector(node, path);
        if (!from)
            return;
        if (from->kind != KeySelector::Kind::Header && from->kind != KeySelector::Kind::Query) {
            error(node, path,
                QStringLiteral("a plan's name comes from a header or a query parameter "
                               "(`header:X-Plan`); to find it from %1, map the value to a plan: "
                               "`from: { key: %1, map: plans.map }`")
                    .arg(from->toString()));
            return;
        }
        p.from = from;
        return;
    }
    if (!node.isMap()) {
        error(node, path,
            QStringLiteral("`from` is `header:X-Plan` or `{ key: header:X-Api-Key, map: "
                           "plans.map }`"));
        return;
    }
    p.fromFieldOrder = keysOf(
        node, path, {QStringLiteral("key"), QStringLiteral("map")}, QStringLiteral("plans.from"));
    requireField(
        node, p.fromFieldOrder, path, QStringLiteral("key"), QStringLiteral("header:X-Api-Key"));
    requireField(node, p.fromFieldOrder, path, QStringLiteral("map"), QStringLiteral("plans.map"));
    for (const QString &key : p.fromFieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString at = child(path, key);
        if (key == QLatin1String("key")) {
            const auto from = keySelector(value, at);
            if (from && from->kind == KeySelector::Kind::Global)
                error(value, at,
                    QStringLiteral("`global` is the same for every request: the map's key is "
                                   "a header, a query parameter or ip"));
            else if (from)
                p.from = from;
        } else if (key == QLatin1String("map")) {
            const auto file = text(value, at);
            if (file && file->trimmed().isEmpty())
                error(value, at,
                    QStringLiteral("name the plan map file (relative to the policy), e.g. "
                                   "`map: plans.map`"));
            else if (file)
                p.mapFile = file;
        }
    }
}

void Reader::readRedis(const YamlNode &node)
{
    const QString path = QStringLiteral("redis");
    RedisSettings &r = m_policy.redis;
    r.present = true;
    if (!expectMap(node, path, QStringLiteral("redis")))
        return;
    r.fieldOrder = keysOf(node, path,
        {QStringLiteral("prefix"), QStringLiteral("metrics"), QStringLiteral("layouts")},
        QStringLiteral("redis"));
    for (const QString &key : r.fieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString p = child(path, key);
        if (key == QLatin1String("prefix")) {
            r.prefix = text(value, p);
        } else if (key == QLatin1String("metrics")) {
            r.metrics = boolean(value, p);
        } else if (key == QLatin1String("layouts")) {
            if (!value.isSequence()) {
                error(value, p,
                    QStringLiteral("layouts must be a list of `- route: <id>` "
                                   "entries"));
                continue;
            }
            for (std::size_t i = 0; i < value.size(); ++i) {
                const QString lp = QStringLiteral("%1[%2]").arg(p).arg(i);
                const YamlNode entry = value[i];
                if (!expectMap(entry, lp, QStringLiteral("a layout")))
                    continue;
                RedisLayout layout;
                layout.fieldOrder = keysOf(entry, lp,
                    {QStringLiteral("route"), QStringLiteral("preset"), QStringLiteral("key"),
                        QStringLiteral("fields"), QStringLiteral("time_unit"),
                        QStringLiteral("refill")},
                    QStringLiteral("a layout"));
                requireField(
                    entry, layout.fieldOrder, lp, QStringLiteral("route"), QStringLiteral("login"));
                for (const QString &k : layout.fieldOrder) {
                    const YamlNode v = entry.find(k.toStdString());
                    const QString fp = child(lp, k);
                    if (k == QLatin1String("route"))
                        layout.routeId = text(v, fp).value_or(QString());
                    else if (k == QLatin1String("key"))
                        layout.keyTemplate = text(v, fp).value_or(QString());
                    else if (k == QLatin1String("preset")) {
                        const QStringList names = layoutPresetNames();
                        if (auto n = choice(v, fp, names))
                            layout.preset = names[*n];
                    } else if (k == QLatin1String("time_unit")) {
                        const QStringList units
                            = {QStringLiteral("s"), QStringLiteral("ms"), QStringLiteral("us")};
                        if (auto u = choice(v, fp, units))
                            layout.timeUnit = units[*u];
                    } else if (k == QLatin1String("refill")) {
                        const QStringList models
                            = {QStringLiteral("continuous"), QStringLiteral("per_unit")};
                        if (auto m = choice(v, fp, models))
                            layout.refill = models[*m];
                    } else if (k == QLatin1String("fields")) {
                        if (!expectMap(v, fp, QStringLiteral("fields")))
                            continue;
                        for (std::size_t f = 0; f < v.size(); ++f)
                            if (auto theirs = text(v.value(f), fp))
                                layout.fields.append(
                                    {QString::fromStdString(v.key(f).scalar()), *theirs});
                    }
                }
                r.layouts.append(layout);
            }
        }
    }
}

void Reader::readRoute(const YamlNode &node, const QString &path, Route &route)
{
    if (!expectMap(node, path, QStringLiteral("a route")))
        return;
    static const QStringList kRouteFields
        = {QStringLiteral("id"), QStringLiteral("description"), QStringLiteral("match"),
            QStringLiteral("key"), QStringLiteral("missing_key"), QStringLiteral("limit"),
            QStringLiteral("limits"), QStringLiteral("cost"), QStringLiteral("mode")};
    route.fieldOrder = keysOf(node, path, kRouteFields, QStringLiteral("a route"));
    requireField(node, route.fieldOrder, path, QStringLiteral("id"), QStringLiteral("login"));
    requireField(node, route.fieldOrder, path, QStringLiteral("match"),
        QStringLiteral("{ path: /v1/login }"));
    const bool one = route.fieldOrder.contains(QStringLiteral("limit"));
    const bool list = route.fieldOrder.contains(QStringLiteral("limits"));
    if (one && list)
        error(node.find("limits"), child(path, QStringLiteral("limits")),
            QStringLiteral("a route has `limit:` or `limits:`, not both: move the `limit:` into "
                           "the list as an item with a `name:`"));
    else if (!one && !list)
        requireField(node, route.fieldOrder, path, QStringLiteral("limit"),
            QStringLiteral("{ algorithm: token_bucket, capacity: 10, refill: 2/s }"));
    for (const QString &key : route.fieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString p = child(path, key);
        if (key == QLatin1String("id"))
            route.id = text(value, p).value_or(QString());
        else if (key == QLatin1String("description"))
            route.description = text(value, p).value_or(QString());
        else if (key == QLatin1String("match"))
            readMatch(value, p, route);
        else if (key == QLatin1String("key"))
            route.key = keySelectors(value, p);
        else if (key == QLatin1String("missing_key")) {
            if (auto v = choice(value, p, missingKeyModeNames()))
                route.missingKey = MissingKeyMode(*v);
        } else if (key == QLatin1String("limit")) {
            if (!list)
                readLimit(value, p, route.limits.first(), false);
        } else if (key == QLatin1String("limits"))
            readLimitList(value, p, route);
        else if (key == QLatin1String("cost"))
            route.cost = integer(value, p, 1, Route::kMaxCost);
        else if (key == QLatin1String("mode")) {
            if (auto v = choice(value, p, {QStringLiteral("enforce"), QStringLiteral("shadow")}))
                route.mode = *v == 0 ? RouteMode::Enforce : RouteMode::Shadow;
        }
    }
}

void Reader::readMatch(const YamlNode &node, const QString &path, Route &route)
{
    if (!expectMap(node, path, QStringLiteral("match")))
        return;
    static const QStringList kMatchFields = {QStringLiteral("methods"), QStringLiteral("path")};
    route.matchFieldOrder = keysOf(node, path, kMatchFields, QStringLiteral("match"));
    requireField(
        node, route.matchFieldOrder, path, QStringLiteral("path"), QStringLiteral("/v1/login"));
    static const QStringList kMethods
        = {QStringLiteral("GET"), QStringLiteral("HEAD"), QStringLiteral("POST"),
            QStringLiteral("PUT"), QStringLiteral("PATCH"), QStringLiteral("DELETE"),
            QStringLiteral("OPTIONS"), QStringLiteral("CONNECT"), QStringLiteral("TRACE")};
    for (const QString &key : route.matchFieldOrder) {
        const YamlNode value = node.find(key.toStdString());
        const QString p = child(path, key);
        if (key == QLatin1String("path")) {
            route.path = text(value, p).value_or(QString());
        } else if (key == QLatin1String("methods")) {
            auto one = [&](const YamlNode &item, const QString &itemPath) {
                const auto m = text(item, itemPath);
                if (!m)
                    return;
                const QString upper = m->toUpper();
                if (!kMethods.contains(upper))
                    error(item, itemPath,
                        QStringLiteral("'%1' is not an HTTP method; use %2")
                            .arg(*m, kMethods.join(QStringLiteral(", "))));
                else if (route.methods.contains(upper))
                    error(item, itemPath, QStringLiteral("%1 is listed twice").arg(upper));
                else
                    route.methods.append(upper);
            };
            if (value.isSequence()) {
                for (std::size_t i = 0; i < value.size(); ++i)
                    one(value[i], QStringLiteral("%1[%2]").arg(p).arg(i));
            } else {
                one(value, p);
            }
        }
    }
}

void Reader::readLimitList(const YamlNode &node, const QString &path, Route &route)
{
    route.limitList = true;
    if (!node.isSequence() || node.size() == 0) {
        error(node, path,
            QStringLiteral("`limits` is a list of limits, each `- { name: burst, algorithm: "
                           "token_bucket, capacity: 10, refill: 2/s }`"));
        return;
    }
    if (node.size() > std::size_t(RouteLimit::kMaxLimits)) {
        error(node, path,
            QStringLiteral("%1 limits on one route; at most %2 (each one costs every request "
                           "a decision): merge limits that count the same thing")
                .arg(node.size())
                .arg(RouteLimit::kMaxLimits));
        return;
    }
    route.limits.clear();
    for (std::size_t i = 0; i < node.size(); ++i) {
        RouteLimit limit;
        limit.name.clear();
        readLimit(node[i], QStringLiteral("%1[%2]").arg(path).arg(i), limit, true);
        route.limits.append(limit);
    }
}

// The fields an item of `limits:` has besides the algorithm's: its name, and the route fields
// it may set for itself.
bool Reader::isItemField(const QString &key)
{
    return key == QLatin1String("name") || key == QLatin1String("key")
        || key == QLatin1String("missing_key") || key == QLatin1String("cost")
        || key == QLatin1String("mode");
}

void Reader::readItemField(
    const QString &key, const YamlNode &value, const QString &path, RouteLimit &limit)
{
    if (key == QLatin1String("name")) {
        limit.name = text(value, path).value_or(QString());
    } else if (key == QLatin1String("key")) {
        limit.key = keySelectors(value, path);
    } else if (key == QLatin1String("missing_key")) {
        if (auto v = choice(value, path, missingKeyModeNames()))
            limit.missingKey = MissingKeyMode(*v);
    } else if (key == QLatin1String("cost")) {
        limit.cost = integer(value, path, 1, Route::kMaxCost);
    }
}

// `mode` is shared with the leaky bucket's police/shape; the two sets of values are apart, so
// the value says which is meant. False: the leaky bucket's, read as an algorithm field.
bool Reader::readItemMode(
    const YamlNode &value, const QString &path, RouteLimit &limit, limiter::Algorithm algorithm)
{
    const QString written = value.isScalar() ? QString::fromStdString(value.scalar()) : QString();
    const bool leaky = algorithm == limiter::Algorithm::LeakyBucket;
    if (leaky && (written == QLatin1String("police") || written == QLatin1String("shape")))
        return false;
    QStringList modes = {QStringLiteral("enforce"), QStringLiteral("shadow")};
    if (leaky)
        modes << QStringLiteral("police") << QStringLiteral("shape");
    if (auto v = choice(value, path, modes))
        limit.mode = *v == 1 ? RouteMode::Shadow : RouteMode::Enforce;
    return true;
}

void Reader::readLimit(const YamlNode &node, const QString &path, RouteLimit &item, bool inList)
{
    const QString what = inList ? QStringLiteral("a limit of `limits`") : QStringLiteral("limit");
    if (!expectMap(node, path, what))
        return;
    static const QStringList single = [] {
        QStringList fields = {QStringLiteral("algorithm"), QStringLiteral("plans")};
        for (const LimitField &f : limitFieldTable())
            fields << f.name;
        return fields;
    }();
    static const QStringList listed = [] {
        QStringList fields = {QStringLiteral("name"), QStringLiteral("key"),
            QStringLiteral("missing_key"), QStringLiteral("cost")};
        return fields + single;
    }();
    LimitSpec &limit = item.spec;
    limit.fieldOrder = keysOf(node, path, inList ? listed : single, what);
    if (inList) {
        requireField(node, limit.fieldOrder, path, QStringLiteral("name"), QStringLiteral("burst"));
        // Read before the algorithm, which may be missing: the name still says which limit.
        for (const QString &key : limit.fieldOrder)
            if (key != QLatin1String("mode"))
                readItemField(key, node.find(key.toStdString()), child(path, key), item);
    }
    static const QStringList names = [] {
        QStringList algorithms;
        for (limiter::Algorithm a : limiter::kAllAlgorithms)
            algorithms << QString::fromLatin1(limiter::algorithmName(a).data());
        return algorithms;
    }();
    if (!limit.fieldOrder.contains(QStringLiteral("algorithm"))) {
        error(node, child(path, QStringLiteral("algorithm")),
            QStringLiteral("missing `algorithm`: one of %1").arg(names.join(QStringLiteral(", "))));
        return;
    }
    const YamlNode algorithmNode = node.find("algorithm");
    std::optional<int> algorithm;
    if (algorithmNode.isScalar()
        && !names.contains(QString::fromStdString(algorithmNode.scalar()).toLower())) {
        const QString written = QString::fromStdString(algorithmNode.scalar());
        const QString suggestion = closest(written, names);
        error(algorithmNode, child(path, QStringLiteral("algorithm")),
            QStringLiteral("unknown algorithm '%1': use one of %2%3")
                .arg(written, names.join(QStringLiteral(", ")),
                    suggestion.isEmpty()
                        ? QString()
                        : QStringLiteral(" (did you mean '%1'?)").arg(suggestion)));
    } else {
        algorithm = choice(algorithmNode, child(path, QStringLiteral("algorithm")), names);
    }
    if (!algorithm)
        return;
    limit.algorithm = limiter::Algorithm(*algorithm);
    const QStringList applicable = limitFields(limit.algorithm);
    // A fixed window follows the calendar or a duration, never both.
    const bool calendar = limit.algorithm == limiter::Algorithm::FixedWindow
        && limit.fieldOrder.contains(QStringLiteral("calendar"));
    if (calendar && limit.fieldOrder.contains(QStringLiteral("window")))
        error(node.find("window"), child(path, QStringLiteral("window")),
            QStringLiteral("`window` and `calendar` exclude each other: `calendar: month` resets "
                           "on the 1st, `window: 30d` counts in 30-day windows from the epoch; "
                           "keep one"));
    if (!calendar && limit.fieldOrder.contains(QStringLiteral("time_zone")))
        error(node.find("time_zone"), child(path, QStringLiteral("time_zone")),
            QStringLiteral("`time_zone` applies to calendar windows only: add `calendar: day`, "
                           "`week`, `month` or `year`, or remove it"));
    for (const LimitField &field : limitFieldTable())
        if (field.appliesTo(limit.algorithm) && field.required
            && !(calendar && field.name == QLatin1String("window"))
            && !limit.fieldOrder.contains(field.name))
            error(node, child(path, field.name),
                QStringLiteral("missing `%1`: %2 takes %3")
                    .arg(field.name, names[*algorithm], applicable.join(QStringLiteral(" and "))));
    for (const QString &key : limit.fieldOrder) {
        if (key == QLatin1String("algorithm"))
            continue;
        const YamlNode value = node.find(key.toStdString());
        if (key == QLatin1String("plans"))
            continue; // after the limit's own fields: which numbers a plan may set follows them
        const QString p = child(path, key);
        if (inList && isItemField(key)
            && (key != QLatin1String("mode") || readItemMode(value, p, item, limit.algorithm)))
            continue;
        if (!applicable.contains(key)) {
            error(value, p,
                QStringLiteral("`%1` does not apply to %2; it takes %3")
                    .arg(key, names[*algorithm], applicable.join(QStringLiteral(" and "))));
            continue;
        }
        readLimitValue(*limitField(key), value, p, limit);
    }
    if (limit.fieldOrder.contains(QStringLiteral("plans")))
        readLimitPlans(node.find("plans"), child(path, QStringLiteral("plans")), item);
}

void Reader::readLimitValue(
    const LimitField &field, const YamlNode &value, const QString &p, LimitSpec &limit)
{
    switch (field.kind) {
    case LimitField::Kind::Count:
        limit.*field.count = integer(value, p, field.min, field.max);
        break;
    case LimitField::Kind::Rate:
        limit.*field.rate = rate(value, p);
        break;
    case LimitField::Kind::Duration:
        limit.*field.duration = duration(value, p);
        break;
    case LimitField::Kind::LeakMode:
        if (auto v = choice(value, p, {QStringLiteral("police"), QStringLiteral("shape")}))
            limit.mode = *v == 0 ? limiter::LeakMode::Police : limiter::LeakMode::Shape;
        break;
    case LimitField::Kind::Calendar:
        if (auto v = choice(value, p, calendarUnitNames()))
            limit.calendar = limiter::CalendarUnit(*v);
        break;
    case LimitField::Kind::TimeZone:
        limit.timeZone = timeZone(value, p);
        break;
    }
}

// `plans: { pro: { capacity: 100, refill: 10/s }, enterprise: unlimited }`: per plan, the
// numbers that differ from the limit's own. Which plans exist is the validator's to check (the
// `plans:` section may come after the routes).
void Reader::readLimitPlans(const YamlNode &node, const QString &path, RouteLimit &item)
{
    const QString example = QStringLiteral(
        "`plans: { pro: { capacity: 100, refill: 10/s }, enterprise: unlimited }`");
    if (!node.isMap() || node.size() == 0) {
        error(node, path,
            QStringLiteral("`plans` gives a plan its own numbers for this limit: %1").arg(example));
        return;
    }
    const limiter::Algorithm algorithm = item.spec.algorithm;
    const QStringList numbers = planFields(item.spec);
    for (std::size_t i = 0; i < node.size(); ++i) {
        const YamlNode nameNode = node.key(i);
        const auto plan = text(nameNode, path);
        if (!plan)
            continue;
        const QString at = child(path, *plan);
        if (item.planLimit(*plan)) {
            error(nameNode, at,
                QStringLiteral("plan '%1' appears twice in this limit's plans: keep one")
                    .arg(*plan));
            continue;
        }
        PlanLimit own;
        own.plan = *plan;
        own.spec.algorithm = algorithm;
        const YamlNode value = node.value(i);
        if (value.isScalar()) {
            if (QString::fromStdString(value.scalar()) == QLatin1String("unlimited")) {
                own.unlimited = true;
                item.plans.append(own);
            } else {
                error(value, at,
                    QStringLiteral("a plan's entry is its numbers (`{ %1: … }`) or `unlimited`, "
                                   "not '%2'")
                        .arg(numbers.value(0), QString::fromStdString(value.scalar())));
            }
            continue;
        }
        if (!expectMap(value, at, QStringLiteral("plan '%1' of this limit").arg(*plan)))
            continue;
        own.spec.fieldOrder = keysOf(value, at, numbers,
            QStringLiteral("plan '%1' of this limit (a plan sets %2)")
                .arg(*plan, numbers.join(QStringLiteral(", "))));
        for (const QString &key : own.spec.fieldOrder)
            readLimitValue(
                *limitField(key), value.find(key.toStdString()), child(at, key), own.spec);
        item.plans.append(own);
    }
}

} // namespace

namespace {

PolicyReadResult failure(const QString &fileName, int line, int column, const QString &message)
{
    PolicyReadResult result;
    result.diagnostics.append(
        Diagnostic{Diagnostic::Severity::Error, fileName, line, column, {}, message, -1, {}, {}});
    return result;
}

// The line of a `---` that starts a second document (one after content), or 0. Found in the
// text rather than with YAML::LoadAll, which loops forever on some malformed input (the fuzzer
// found one); a `---` at column 0 always ends what came before, even a block scalar.
int secondDocumentLine(const QByteArray &text)
{
    bool content = false;
    int line = 0;
    for (qsizetype start = 0; start < text.size();) {
        qsizetype end = text.indexOf('\n', start);
        if (end < 0)
            end = text.size();
        ++line;
        const QByteArrayView raw(text.constData() + start, end - start);
        const QByteArrayView trimmed = raw.trimmed();
        const bool marker = raw.startsWith("---")
            && (raw.size() == 3 || raw[3] == ' ' || raw[3] == '\t' || raw[3] == '\r');
        if (marker && content)
            return line;
        if (!marker && !trimmed.isEmpty() && !trimmed.startsWith('#') && !trimmed.startsWith('%'))
            content = true;
        start = end + 1;
    }
    return 0;
}

QString tooLarge()
{
    return QStringLiteral("larger than %1 MiB, the most Quota Studio reads: is this a policy? "
                          "Split a very large one into several files")
        .arg(kMaxPolicyBytes / (1024 * 1024));
}

QString syntaxMessage(const YamlSyntaxError &e)
{
    if (e.tooDeep)
        return QStringLiteral("nesting deeper than %1 levels here: a policy needs at most six; "
                              "look for an unclosed '[' or '{' or a runaway indentation")
            .arg(e.depth);
    if (e.notUtf8)
        return QStringLiteral("byte %1 here is not UTF-8: a policy is UTF-8 text; save the file "
                              "as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)")
            .arg(QString::fromStdString(e.message));
    return QString::fromStdString(e.message) + QStringLiteral(": fix the syntax here");
}

} // namespace

PolicyReadResult readPolicy(
    const QByteArray &text, const QString &fileName, const QString &policyPath)
{
    if (text.size() > kMaxPolicyBytes)
        return failure(fileName, 0, 0, tooLarge());
    PolicyReadResult result;
    if (const int line = secondDocumentLine(text); line > 0)
        return failure(fileName, line, 1,
            QStringLiteral("a second YAML document starts here (`---`): a policy is one "
                           "document; remove the `---` or put each policy in its own file"));
    try {
        auto doc = std::make_shared<const YamlDocument>(YamlDocument::parse(text.toStdString()));
        if (!doc->ok()) {
            const YamlSyntaxError &e = doc->error();
            return failure(fileName, e.mark.line + 1, e.mark.column + 1, syntaxMessage(e));
        }
        Reader(fileName, result).readRoot(doc->root());
        if (!policyPath.isEmpty())
            result.diagnostics.append(loadPlanMap(result.policy, policyPath));
        result.policy.locations = SourceLocations(std::move(doc));
    } catch (const std::bad_alloc &) {
        return failure(
            fileName, 0, 0, QStringLiteral("not enough memory to read this file: is it a policy?"));
    }
    // Semantic checks run even after reading errors, so that every problem shows at once; they
    // skip what the reader already reported.
    result.diagnostics.append(validatePolicy(result.policy, fileName, result.diagnostics));
    std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(),
        [](const Diagnostic &a, const Diagnostic &b) {
            return std::pair(a.line, a.column) < std::pair(b.line, b.column);
        });
    return result;
}

PolicyReadResult readPolicyFile(const QString &path, QByteArray *bytes, bool withPlanMap)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return failure(path, 0, 0, QStringLiteral("cannot open: %1").arg(file.errorString()));
    // Read one byte past the cap, whatever the file claims to be: a device or a pipe reports
    // no size, and /dev/zero never ends.
    QByteArray text;
    while (text.size() <= kMaxPolicyBytes) {
        const QByteArray chunk
            = file.read(std::min<qint64>(1 << 20, kMaxPolicyBytes + 1 - text.size()));
        if (chunk.isEmpty())
            break;
        text += chunk;
    }
    if (file.error() != QFileDevice::NoError)
        return failure(path, 0, 0, QStringLiteral("cannot read: %1").arg(file.errorString()));
    if (text.size() > kMaxPolicyBytes)
        return failure(path, 0, 0, tooLarge());
    if (bytes)
        *bytes = text;
    return readPolicy(text, path, withPlanMap ? path : QString());
}

} // namespace qs
