#include "model/export/redisbundleexporter.h"
#include "model/policy/plans.h"
#include "model/policy/policykeys.h"

#include "limiter/redis/keylayout.h"

#include "limiter/redis/redisscripts.h"
#include "model/export/exportreport.h"
#include "model/export/gatewaywriter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policytree.h"

#include <QCryptographicHash>

#include <map>

namespace qs {

extern const char kQuotaMiddlewarePy[]; // resources/redis-bundle/quota_middleware.py

namespace {

QStringList parameterNames(limiter::Algorithm algorithm)
{
    switch (algorithm) {
    case limiter::Algorithm::TokenBucket:
        return {QStringLiteral("capacity"), QStringLiteral("refill_count"),
            QStringLiteral("refill_period_us")};
    case limiter::Algorithm::LeakyBucket:
        return {QStringLiteral("interval_us"), QStringLiteral("queue"), QStringLiteral("shape")};
    case limiter::Algorithm::Gcra:
        return {QStringLiteral("interval_us"), QStringLiteral("burst")};
    case limiter::Algorithm::FixedWindow:
    case limiter::Algorithm::SlidingWindowCounter:
    case limiter::Algorithm::SlidingWindowLog:
        break;
    }
    return {QStringLiteral("limit"), QStringLiteral("window_us")};
}

// The client key the caller builds: the route's key parts in order, joined by '|'.
QString clientKeyTemplate(const QList<KeySelector> &keys)
{
    QStringList parts;
    for (const KeySelector &k : keys)
        parts << (k.kind == KeySelector::Kind::Global
                ? QStringLiteral("all")
                : QLatin1Char('{') + k.toString() + QLatin1Char('}'));
    return parts.join(QLatin1Char('|'));
}

// Markdown table cell: no line breaks, no column separators, no code spans that run away.
QString cell(const QString &text)
{
    return ExportReport::commentSafe(text)
        .replace(QLatin1Char('|'), QStringLiteral("\\|"))
        .replace(QLatin1Char('`'), QLatin1Char('\''));
}

const char *kReadme = R"(# Quota Studio Redis script bundle

Every route of the policy is one call of one Lua script, atomic in Redis:

    EVALSHA <sha1> 1 <key_prefix><client key> <cost> <parameters…> [<now µs or ''>]

`manifest.json` lists, per route, the script, `key_prefix`, the parts that make the client key,
what to do when a request lacks one (`missing_key`), the cost and the parameters.

The client key is the route's `key_parts` in order, joined by `|`: `ip` the client address,
`header:<Name>` and `query:<name>` the request's values, `global` the text `all`. Escape `\`
as `\\` and `|` as `\|` inside each value, so that two different requests never build one key.
When a header or query part is absent or empty, follow the route's `missing_key`: `shared`
uses the empty string for it (all such requests share one bucket), `ip` the client address,
`deny` refuses the request with the manifest's `status` without calling Redis, `allow` passes
it without calling Redis. The reply is 32 bytes: four
little-endian doubles (Lua `struct.pack('<dddd')`), `code, remaining, wait_us, reset_after_us`,
all whole numbers: code 0 admitted (wait_us: how long to delay the request in shape mode),
1 limit exceeded (wait_us: Retry-After), 2 the cost exceeds what the limit can ever admit.
Binary because converting a Lua table costs Redis about 10% more CPU per call; read it as
bytes (no `decode_responses`, ioredis' `…Buffer` commands, go-redis `Text()`). Leave now out
(or pass `''`) to use Redis' clock (recommended: gateway clocks skew).
Routes in `shadow` mode count but must never reject; `on_store_error` says what to do when Redis
cannot answer. A script touches its one declared key and nothing else, so it runs unchanged on
Redis Cluster (send it to the master of the key's slot, as cluster clients do).

When a route has a `metrics_prefix`, count its decisions yourself and add them once a second:
`HINCRBY <metrics_prefix>:<epoch second> a <admitted>`, `HINCRBY … d <denied>`,
`EXPIRE … 120` (Quota Studio's monitor reads these; quota_middleware.py does it for you). On a
route whose limits have `plans`, count each request in its plan's fields too, `a:<plan>` and
`d:<plan>`, also when the plan is unlimited and nothing was called.

A route with several limits (`script: several`, manifest format 4) lists them in `limits`, each
with its algorithm, key parts, key prefix, cost, mode and three parameters (`''` for an unused
third). One call decides them all, and writes only when every enforced limit admits, so a
denied request takes from none: `EVALSHA <several sha1> N <key 1> … <key N> <now_us or ''>`
then, per limit, `<algorithm> <cost> <1 if shadow else 0> <p1> <p2> <p3>`; the reply is four
doubles per limit, in the keys' order. All N keys must be on one Redis Cluster node.

Plans (manifest format 5): the root's `plans` says how to find a request's plan — `from` (a
header or query parameter holding the plan's name, or with `keys` the part whose value maps to
a plan) and `default` for a missing or unknown one. A limit whose numbers differ by plan has
`plans`: per plan its `key_prefix`, `parameters` and `quota`, or `"unlimited"` (leave the limit
out of the call). With a map, `map_file` names `plans.map` beside the manifest (`value plan` a
line): quota_middleware.py reads it again within a second of a change, so a key's plan changes
without a restart (a broken edit keeps the last good map, and is logged).

## FastAPI / Starlette: quota_middleware.py

The bundle ships a ready middleware that does all of the above for every route: it matches
routes as the policy does (`match_order` lists them most specific first; paths are compared
after merging slashes, resolving `.` and `..` and percent-decoding), builds the key,
runs the script and answers with the manifest's `status`, `Retry-After` and the RateLimit
headers the policy's `headers` asks for (`quota` gives their limit and window). When Redis
cannot answer it follows `on_store_error`; any other failure answers 503: it never admits a
request the policy did not, and never lets an exception reach your app. Needs fastapi (or
starlette) and redis-py 4.2 or later (Debian: python3-fastapi, python3-redis).

```python
from fastapi import FastAPI
from quota_middleware import QuotaMiddleware

app = FastAPI()
app.add_middleware(QuotaMiddleware, bundle="path/to/this/folder",
                   redis_url="redis://127.0.0.1:6379/0")
```

The client address is the connection's (uvicorn's `--proxy-headers` and
`--forwarded-allow-ips` decide whether a proxy's X-Forwarded-For replaces it). Check the
running service with `quotactl probe --policy <policy> --route <id> --url http://…`.

## Python (redis-py)

```python
import json, redis, struct
manifest = json.load(open("manifest.json"))
r = redis.Redis()
scripts = {name: r.register_script(open(s["file"]).read())
           for name, s in manifest["scripts"].items()}

def check(route_id, client_key, cost=None):
    route = next(x for x in manifest["routes"] if x["id"] == route_id)
    reply = scripts[route["script"]](
        keys=[route["key_prefix"] + client_key],
        args=[cost or route["cost"], *route["parameters"]])
    code, remaining, wait_us, reset_us = (int(x) for x in struct.unpack("<4d", reply))
    return code == 0 or route["mode"] == "shadow", remaining, wait_us, reset_us
```

## Node (ioredis)

```js
const fs = require("fs");
const Redis = require("ioredis");
const manifest = JSON.parse(fs.readFileSync("manifest.json", "utf8"));
const redis = new Redis();
for (const [name, s] of Object.entries(manifest.scripts))
  redis.defineCommand(`qs_${name}`, { numberOfKeys: 1, lua: fs.readFileSync(s.file, "utf8") });

async function check(routeId, clientKey, cost) {
  const route = manifest.routes.find((r) => r.id === routeId);
  const reply = await redis[`qs_${route.script}Buffer`](
    route.key_prefix + clientKey, cost ?? route.cost, ...route.parameters);
  const [code, remaining, waitUs, resetUs] = [0, 8, 16, 24].map((at) => reply.readDoubleLE(at));
  return { allowed: code === 0 || route.mode === "shadow", remaining, waitUs, resetUs };
}
```

## Go (go-redis)

```go
// route: one entry of manifest.routes; lua: the text of manifest.scripts[route.Script].File
script := redis.NewScript(lua)
args := append([]interface{}{route.Cost}, route.Parameters...)
reply, err := script.Run(ctx, rdb, []string{route.KeyPrefix + clientKey}, args...).Text()
if err != nil || len(reply) != 32 {
	// Redis could not answer: follow manifest.OnStoreError ("allow" or "deny")
}
field := func(i int) int64 { // code, remaining, wait_us, reset_after_us
	return int64(math.Float64frombits(binary.LittleEndian.Uint64([]byte(reply[8*i:]))))
}
allowed := field(0) == 0 || route.Mode == "shadow"
```

`Script.Run` sends EVALSHA and falls back to EVAL when Redis answers NOSCRIPT (after a restart
or SCRIPT FLUSH); redis-py and ioredis do the same.

## Without Lua: the Quota Studio Redis module

Where you run Redis 7 yourself, the module `quota_studio_redis.so` decides natively, at a
fraction of a script's CPU, on the same keys and with the same reply (Quota Studio's
docs/redis-layout.md, "Redis module"). Build it from Quota Studio's sources with
`cmake --build build --target quota_studio_redis` (the Debian package installs it under
/usr/lib/quota-studio/), load it with `redis-server --loadmodule <path>`, then send

    QS.DECIDE <key_prefix><client key> <script> <cost> <parameters…>

instead of EVALSHA (`<script>` is the route's `script`, e.g. `token_bucket`). Scripts and
module may serve the same keys side by side, so gateways can move over one at a time.

## Routes

)";

class BundleWriter final : public GatewayWriter {
public:
    BundleWriter(const Policy &policy, const Exporter &exporter) : GatewayWriter(policy, exporter)
    {
        // quota_middleware.py computes calendar windows with zoneinfo, in any zone.
        m_report.setNativeCalendarEverywhere();
        m_report.setPlans(); // per-plan parameters and keys in each limit's `plans`
    }

private:
    // The middleware matches the pattern in manifest.json: the same rule as every gateway, so
    // a path no gateway would accept is not handed to it either.
    void prepare(qsizetype i) override
    {
        const Route &r = m_policy.routes[i];
        auto pattern = m_report.pathPattern(i);
        if (!pattern)
            return;
        std::optional<RouteEntry> described;
        // A route whose numbers differ by plan goes through several.lua even with one limit:
        // each limit's `plans` tell the middleware the plan's parameters and keys.
        if (keysLimitsByName(m_policy, r)) {
            std::vector<limiter::AlgorithmConfig> configs;
            for (qsizetype l = 0; l < r.limits.size(); ++l)
                if (const auto config = m_report.algorithmConfig(i, l))
                    configs.push_back(*config);
            if (configs.size() != std::size_t(r.limits.size()))
                return;
            described = describeSeveral(r, configs);
        } else {
            const auto config = m_report.algorithmConfig(i);
            if (!config)
                return;
            described = describe(r, *config);
        }
        const RouteEntry &entry = *described;
        appendManifestRoute(entry.manifest);
        m_matchOrder.push_back({r.id, *std::move(pattern)});
        QStringList parameters;
        for (const std::int64_t v : entry.parameters)
            parameters << QString::number(v);
        m_table += QStringLiteral("| %1 | %2 | `%3` | %4 |\n")
                       .arg(cell(r.id), entry.script, cell(entry.keyTemplate),
                           parameters.join(QStringLiteral(", ")));
    }

    // Routes are matched as the policy resolves them: the manifest lists them most specific
    // first in `match_order` (the routes themselves stay in policy order).
    void order() override { sortMostSpecificFirst(m_matchOrder); }

    // The manifest, the README, the middleware and one script per algorithm the policy uses.
    QStringList files() const override
    {
        QStringList names{QStringLiteral("manifest.json"), QStringLiteral("README.md"),
            QStringLiteral("quota_middleware.py")};
        for (const auto &entry : m_scripts)
            names << entry.first + QStringLiteral(".lua");
        if (writesPlanMap())
            names << QString::fromLatin1(kPlanMapFile);
        return names;
    }

    // The policy's plan map, copied beside the manifest: the middleware reads it again when it
    // changes, so that a key's plan changes without a new export or a restart.
    static constexpr const char *kPlanMapFile = "plans.map";
    bool writesPlanMap() const
    {
        return !m_policy.plans.names.isEmpty() && m_policy.plans.fromMap() && m_policy.plans.map;
    }
    QByteArray planMapFile() const
    {
        QByteArray out = "# The plan of each " + m_policy.plans.from->toString().toUtf8()
            + " value: `value plan` a line (policy `plans:`). Edit it here: the middleware reads\n"
              "# it again within a second of a change. A value not listed is on "
            + m_policy.plans.effectiveDefault().toUtf8() + ".\n";
        for (const PlanMapEntry &e : m_policy.plans.map->entries)
            out += e.value.toUtf8() + ' ' + e.plan.toUtf8() + '\n';
        return out;
    }

    QByteArray write(const QString &file) override
    {
        if (file == QLatin1String("manifest.json"))
            return manifest();
        if (file == QLatin1String("quota_middleware.py"))
            return QByteArray(kQuotaMiddlewarePy);
        if (file == QLatin1String(kPlanMapFile))
            return planMapFile();
        if (file == QLatin1String("README.md"))
            return QByteArray(kReadme)
                + QStringLiteral(
                    "| route | script | key | parameters |\n| --- | --- | --- | --- |\n")
                      .toUtf8()
                + m_table.toUtf8();
        return m_scripts.at(file.chopped(4));
    }

    // A route's manifest entry, and what the README's table shows of it.
    struct RouteEntry {
        Tree manifest;
        QString script;
        QString keyTemplate;
        std::vector<std::int64_t> parameters;
    };

    // Keys are written in alphabetical order, as QJsonDocument wrote them before: manifests of
    // earlier versions and of this one differ only where their content does.
    RouteEntry describe(const Route &r, const limiter::AlgorithmConfig &config)
    {
        const limiter::Algorithm algorithm = limiter::algorithmOf(config);
        RouteEntry entry;
        entry.script = QString::fromLatin1(limiter::algorithmName(algorithm).data());
        const std::string_view lua = limiter::redisScript(algorithm);
        m_scripts.try_emplace(entry.script, lua.data(), qsizetype(lua.size())); // once a script

        const std::string routePrefix = limitKeyPrefix(m_policy, r, 0);
        const QString keyPrefix = QString::fromStdString(routePrefix) + QLatin1Char(':');
        const QList<KeySelector> keys = m_policy.keyOf(r);
        entry.keyTemplate = keyPrefix + clientKeyTemplate(keys);
        Tree keyParts = Tree::seq(), parameters = Tree::seq(), names = Tree::seq(),
             methods = Tree::seq();
        for (const KeySelector &k : keys)
            keyParts.items.append(Tree::text(k.toString()));
        for (const std::int64_t v : limiter::redisScriptParameterValues(config)) {
            entry.parameters.push_back(v);
            parameters.items.append(Tree::number(v));
        }
        for (const QString &n : parameterNames(algorithm))
            names.items.append(Tree::text(n));
        for (const QString &m : r.methods)
            methods.items.append(Tree::text(m));
        // What RateLimit-Policy and X-RateLimit-Limit announce: the engine's own figures.
        const limiter::Quota quota = limiter::peek(config, limiter::freshState(config), 0);
        Tree quotaTree = Tree::map();
        quotaTree.fields = {{QStringLiteral("limit"), Tree::number(quota.limit)},
            {QStringLiteral("window_s"), Tree::number(limiter::secondsCeil(quota.window))}};
        Tree &m = entry.manifest;
        m = Tree::map();
        m.fields = {
            {QStringLiteral("cost"), Tree::number(r.effectiveCost())},
            {QStringLiteral("id"), Tree::text(r.id)},
            {QStringLiteral("key_parts"), keyParts},
            {QStringLiteral("key_prefix"), Tree::text(keyPrefix)},
            {QStringLiteral("key_template"), Tree::text(entry.keyTemplate)},
            {QStringLiteral("methods"), methods},
            {QStringLiteral("metrics_prefix"),
                Tree::text(m_policy.redis.metrics.value_or(false)
                        ? QString::fromStdString(limiter::keylayout::metricsPrefix(routePrefix))
                        : QString())},
            {QStringLiteral("missing_key"),
                keyCanBeMissing(keys) ? Tree::text(missingKeyModeName(m_policy.missingKeyOf(r)))
                                      : Tree::null()},
            {QStringLiteral("mode"), Tree::text(routeModeName(r.effectiveMode()))},
            {QStringLiteral("parameter_names"), names},
            {QStringLiteral("parameters"), parameters},
            {QStringLiteral("path"), Tree::text(r.path)},
            {QStringLiteral("quota"), quotaTree},
            {QStringLiteral("script"), Tree::text(entry.script)},
        };
        addCalendar(m, config);
        return entry;
    }

    // A calendar fixed window's unit and zone, for the middleware to compute its windows.
    static void addCalendar(Tree &manifest, const limiter::AlgorithmConfig &config)
    {
        const auto *fixed = std::get_if<limiter::FixedWindowConfig>(&config);
        const limiter::CalendarWindows *zoned
            = fixed && fixed->calendar ? fixed->calendar->zoned() : nullptr;
        if (!zoned)
            return;
        Tree calendar = Tree::map();
        calendar.fields = {
            {QStringLiteral("time_zone"), Tree::text(QString::fromStdString(zoned->zone().name()))},
            {QStringLiteral("unit"),
                Tree::text(QString::fromLatin1(limiter::calendarUnitName(zoned->unit()).data()))}};
        manifest.fields.insert(0, {QStringLiteral("calendar"), calendar});
    }

    // A route with several limits: one call of several.lua for all of them (docs/redis-layout.md,
    // "Several limits in one call"), each limit with its own key, cost, mode and parameters.
    // Each limit's keys are its own: `<prefix>:<route>:<limit>:<client key>`.
    RouteEntry describeSeveral(const Route &r, const std::vector<limiter::AlgorithmConfig> &configs)
    {
        m_severalLimits = true;
        RouteEntry entry;
        entry.script = QStringLiteral("several");
        const std::string_view lua = limiter::redisSeveralScript();
        m_scripts.try_emplace(entry.script, lua.data(), qsizetype(lua.size()));
        const std::string routePrefix = limiter::keylayout::routePrefix(
            m_policy.redis.effectivePrefix().toStdString(), r.id.toStdString());
        Tree limits = Tree::seq(), methods = Tree::seq();
        QStringList templates;
        for (qsizetype l = 0; l < r.limits.size(); ++l) {
            const RouteLimit &limit = r.limits[l];
            const limiter::AlgorithmConfig &config = configs[std::size_t(l)];
            const limiter::Algorithm algorithm = limiter::algorithmOf(config);
            const QString keyPrefix
                = QString::fromStdString(limitKeyPrefix(m_policy, r, l)) + QLatin1Char(':');
            const QList<KeySelector> keys = m_policy.keyOf(r, limit);
            templates << keyPrefix + clientKeyTemplate(keys);
            Tree keyParts = Tree::seq(), parameters = Tree::seq();
            for (const KeySelector &k : keys)
                keyParts.items.append(Tree::text(k.toString()));
            const limiter::ScriptParameters values = limiter::redisScriptParameterValues(config);
            for (int p = 0; p < 3; ++p)
                parameters.items.append(
                    p < values.count ? Tree::number(values.values[p]) : Tree::text(QString()));
            const limiter::Quota quota = limiter::peek(config, limiter::freshState(config), 0);
            Tree quotaTree = Tree::map();
            quotaTree.fields = {{QStringLiteral("limit"), Tree::number(quota.limit)},
                {QStringLiteral("window_s"), Tree::number(limiter::secondsCeil(quota.window))}};
            Tree item = Tree::map();
            item.fields = {
                {QStringLiteral("algorithm"),
                    Tree::text(QString::fromLatin1(limiter::algorithmName(algorithm).data()))},
                {QStringLiteral("cost"), Tree::number(r.costOf(limit))},
                {QStringLiteral("key_parts"), keyParts},
                {QStringLiteral("key_prefix"), Tree::text(keyPrefix)},
                {QStringLiteral("missing_key"),
                    keyCanBeMissing(keys)
                        ? Tree::text(missingKeyModeName(m_policy.missingKeyOf(r, limit)))
                        : Tree::null()},
                {QStringLiteral("mode"), Tree::text(routeModeName(r.modeOf(limit)))},
                {QStringLiteral("name"), Tree::text(limit.name)},
                {QStringLiteral("parameters"), parameters},
                {QStringLiteral("quota"), quotaTree},
            };
            addCalendar(item, config);
            if (limit.variesByPlan() && !m_policy.plans.names.isEmpty()) {
                const auto plans = planEntries(r, l);
                if (!plans)
                    return entry;
                item.fields.append({QStringLiteral("plans"), *plans});
            }
            limits.items.append(item);
        }
        for (const QString &m : r.methods)
            methods.items.append(Tree::text(m));
        entry.keyTemplate = templates.join(QStringLiteral(", "));
        Tree &m = entry.manifest;
        m = Tree::map();
        m.fields = {
            {QStringLiteral("id"), Tree::text(r.id)},
            {QStringLiteral("limits"), limits},
            {QStringLiteral("methods"), methods},
            {QStringLiteral("metrics_prefix"),
                Tree::text(m_policy.redis.metrics.value_or(false)
                        ? QString::fromStdString(limiter::keylayout::metricsPrefix(routePrefix))
                        : QString())},
            {QStringLiteral("mode"), Tree::text(routeModeName(r.effectiveMode()))},
            {QStringLiteral("path"), Tree::text(r.path)},
            {QStringLiteral("script"), Tree::text(entry.script)},
        };
        return entry;
    }

    // A planned limit's `plans`: for every plan, its parameters, quota and keys
    // (`<limit's prefix><plan>:<client key>`), or `unlimited`. nullopt after an error.
    std::optional<Tree> planEntries(const Route &r, qsizetype l)
    {
        const qsizetype route = qsizetype(&r - m_policy.routes.constData());
        Tree plans = Tree::map();
        for (const QString &plan : m_policy.plans.names) {
            if (!specForPlan(r.limits[l], plan)) {
                plans.fields.append({plan, Tree::text(QStringLiteral("unlimited"))});
                continue;
            }
            const auto config = m_report.planConfig(route, l, plan);
            if (!config)
                return std::nullopt;
            Tree parameters = Tree::seq();
            const limiter::ScriptParameters values = limiter::redisScriptParameterValues(*config);
            for (int p = 0; p < 3; ++p)
                parameters.items.append(
                    p < values.count ? Tree::number(values.values[p]) : Tree::text(QString()));
            const limiter::Quota quota = limiter::peek(*config, limiter::freshState(*config), 0);
            Tree quotaTree = Tree::map();
            quotaTree.fields = {{QStringLiteral("limit"), Tree::number(quota.limit)},
                {QStringLiteral("window_s"), Tree::number(limiter::secondsCeil(quota.window))}};
            Tree one = Tree::map();
            one.fields = {
                {QStringLiteral("key_prefix"),
                    Tree::text(QString::fromStdString(limitKeyPrefix(m_policy, r, l, plan))
                        + QLatin1Char(':'))},
                {QStringLiteral("parameters"), parameters},
                {QStringLiteral("quota"), quotaTree},
            };
            plans.fields.append({plan, one});
        }
        return plans;
    }

    // The policy's `plans:` as the middleware finds a request's plan: the attribute, the
    // default, and for a map, its keys.
    Tree plansTree() const
    {
        const PlanSettings &p = m_policy.plans;
        Tree names = Tree::seq();
        for (const QString &n : p.names)
            names.items.append(Tree::text(n));
        Tree keys = Tree::null();
        if (p.fromMap() && p.map) {
            keys = Tree::map();
            for (const PlanMapEntry &e : p.map->entries)
                keys.fields.append({e.value, Tree::text(e.plan)});
        }
        Tree t = Tree::map();
        t.fields = {
            {QStringLiteral("default"), Tree::text(p.effectiveDefault())},
            {QStringLiteral("from"), p.from ? Tree::text(p.from->toString()) : Tree::null()},
            {QStringLiteral("keys"), keys},
            {QStringLiteral("map_file"),
                writesPlanMap() ? Tree::text(QString::fromLatin1(kPlanMapFile)) : Tree::null()},
            {QStringLiteral("names"), names},
        };
        return t;
    }

    // A route's manifest entry as text, now: a hundred thousand routes kept as trees until the
    // end cost 600 MB for an 84 MB manifest. Indented as an item of the root's `routes`.
    void appendManifestRoute(const Tree &route)
    {
        QString text;
        emitTreeJson(text, route, 2, JsonLayout::qtIndented());
        m_routesJson += (m_routeCount++ == 0 ? "\n" : ",\n") + QByteArray(8, ' ') + text.toUtf8();
    }

    QByteArray manifest()
    {
        Tree scripts = Tree::map();
        for (const auto &[name, text] : m_scripts) {
            Tree script = Tree::map();
            script.fields = {{QStringLiteral("file"), Tree::text(name + QStringLiteral(".lua"))},
                {QStringLiteral("sha1"),
                    Tree::text(QString::fromLatin1(
                        QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex()))}};
            scripts.fields.append({name, script});
        }
        Tree fields = Tree::seq();
        for (const char *f : {"code", "remaining", "wait_us", "reset_after_us"})
            fields.items.append(Tree::text(QString::fromLatin1(f)));
        Tree reply = Tree::map();
        reply.fields = {{QStringLiteral("encoding"),
                            Tree::text(QStringLiteral("little-endian float64 each, 32 bytes "
                                                      "(Lua struct.pack('<dddd'))"))},
            {QStringLiteral("fields"), fields}};
        Tree root = Tree::map();
        root.fields = {
            {QStringLiteral("call"),
                Tree::text(QStringLiteral("EVALSHA <sha1> 1 <key_prefix><client key> <cost> "
                                          "<parameters...> [<now_us or ''>]"))},
            // 4: routes with several limits (`limits`, several.lua); a bundle without any stays
            // 3, which middlewares of before read as they did. 5: plans, which a middleware of
            // 4 would ignore (every client on the limits' own numbers): it refuses 5.
            {QStringLiteral("format"),
                Tree::text(!m_policy.plans.names.isEmpty()
                        ? QStringLiteral("quota-studio-redis-bundle/5")
                        : m_severalLimits ? QStringLiteral("quota-studio-redis-bundle/4")
                                          : QStringLiteral("quota-studio-redis-bundle/3"))},
            {QStringLiteral("headers"),
                Tree::text(headerStyleName(
                    m_policy.defaults.headers.value_or(limiter::HeaderStyle::Draft)))},
            {QStringLiteral("match_order"), matchOrder()},
            {QStringLiteral("on_store_error"),
                Tree::text(storeErrorPolicyName(m_policy.defaults.effectiveOnStoreError()))},
            {QStringLiteral("policy"), Tree::text(m_policy.name)},
            {QStringLiteral("reply"), reply},
            {QStringLiteral("routes"),
                m_routeCount == 0 ? Tree::seq() : Tree::text(QString::fromLatin1(kRoutesHere))},
            {QStringLiteral("scripts"), scripts},
            {QStringLiteral("status"), Tree::number(m_policy.defaults.effectiveStatus())},
        };
        if (!m_policy.plans.names.isEmpty()) {
            if (m_policy.plans.fromMap() && !m_policy.plans.map)
                m_report.notePolicy(Diagnostic::Severity::Error, QStringLiteral("plans.from.map"),
                    QStringLiteral("the plan map was not read: export from the policy's file, "
                                   "beside its map"));
            root.fields.insert(6, {QStringLiteral("plans"), plansTree()}); // alphabetical
        }
        QString out;
        emitTreeJson(out, root, 0, JsonLayout::qtIndented());
        QByteArray json = out.toUtf8() + '\n';
        // The routes, written as they were described, go where the root's placeholder stands:
        // a line break and the root's indentation cannot come from a string (JSON escapes it).
        const QByteArray placeholder = QByteArray("\n    \"routes\": \"") + kRoutesHere + '"';
        if (const qsizetype at = json.indexOf(placeholder); at >= 0)
            json.replace(at, placeholder.size(), "\n    \"routes\": [" + m_routesJson + "\n    ]");
        return json;
    }

    Tree matchOrder() const
    {
        Tree ids = Tree::seq();
        for (const MatchEntry &e : m_matchOrder)
            ids.items.append(Tree::text(e.id));
        return ids;
    }

    struct MatchEntry {
        QString id;
        PathPattern pattern;
    };
    std::vector<MatchEntry> m_matchOrder;
    std::map<QString, QByteArray> m_scripts; // by algorithm name, sorted for stable output
    static constexpr const char *kRoutesHere = "routes are written here";
    QByteArray m_routesJson; // the manifest's routes, in policy order, as JSON items
    qsizetype m_routeCount = 0;
    bool m_severalLimits = false; // a route with several limits: format 4
    QString m_table; // the README's rows
};

} // namespace

ExportResult RedisBundleExporter::write(const Policy &policy) const
{
    return BundleWriter(policy, *this).run();
}

} // namespace qs
