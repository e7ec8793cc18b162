// The exported Redis bundle, used the way its README tells an operator to: load each script
// file into the real redis-server, check that Redis names it by the manifest's SHA-1, then
// decide every route of every example through EVALSHA with the manifest's key and arguments.
// The decisions must equal the embedded engine's on the same trace: the manifest is only
// correct if it reproduces exactly what the simulator showed.
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/limitset.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisscripts.h"
#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/policy/policyreader.h"
#include "tests/support/redisprocess.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

using namespace qs;

namespace {

struct ContextDeleter {
    void operator()(redisContext *c) const { redisFree(c); }
};
struct ReplyDeleter {
    void operator()(redisReply *r) const { freeReplyObject(r); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

Reply command(redisContext *c, const std::vector<std::string> &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const std::string &a : args) {
        argv.push_back(a.data());
        lengths.push_back(a.size());
    }
    return Reply(static_cast<redisReply *>(
        redisCommandArgv(c, int(argv.size()), argv.data(), lengths.data())));
}

const ExportedFile *file(const ExportResult &r, const QString &name)
{
    for (const ExportedFile &f : r.files)
        if (f.name == name)
            return &f;
    return nullptr;
}

} // namespace

namespace {

// A route with several limits, driven by its manifest entry alone (each limit's key prefix,
// algorithm, cost, mode and parameters, and with plans the plan's own: client i is on plan
// i mod the plans' count) through one EVALSHA of several.lua per request, against limitset's
// decideAll on the policy's own limits (with the plan's numbers, specForPlan).
void checkSeveral(redisContext *c, const std::string &sha, const QJsonObject &route,
    const Route &designed, const QStringList &plans, const std::string &example)
{
    const QJsonArray limits = route[QStringLiteral("limits")].toArray();
    ASSERT_EQ(limits.size(), designed.limits.size()) << example;
    constexpr int kClients = 3;
    // Per client: each limit's manifest entry on its plan (null when unlimited) and config.
    std::vector<std::vector<std::optional<QJsonObject>>> entries(kClients);
    std::vector<std::vector<std::optional<limiter::AlgorithmConfig>>> configs(kClients);
    for (int who = 0; who < kClients; ++who) {
        const QString plan = plans.isEmpty() ? QString() : plans[who % plans.size()];
        for (qsizetype l = 0; l < limits.size(); ++l) {
            QJsonObject item = limits[l].toObject();
            const QJsonValue own = item[QStringLiteral("plans")][plan];
            if (own.isString()) { // unlimited on this plan
                entries[who].push_back(std::nullopt);
                configs[who].push_back(std::nullopt);
                continue;
            }
            for (const QString &field : own.toObject().keys())
                item[field] = own[field];
            entries[who].push_back(item);
            const auto spec
                = plan.isEmpty() ? designed.limits[l].spec : *specForPlan(designed.limits[l], plan);
            configs[who].push_back(*toAlgorithmConfig(spec));
        }
    }
    std::map<std::string, std::vector<limiter::AlgorithmState>> local;
    std::mt19937_64 rng(99);
    std::exponential_distribution<double> gap(1.0 / 5'000.0); // ~70/s a client: denials
    std::uniform_int_distribution<int> client(0, kClients - 1);
    limiter::Micros now = 1'700'000'000'000'000;
    // Examples share route and limit names (two have search/burst): each counts its own clients.
    const std::string run = "bundle-test:" + std::to_string(::getpid()) + ":" + example + ":";
    int denied = 0;
    for (int n = 0; n < 200; ++n) {
        now += limiter::Micros(gap(rng));
        const int index = client(rng);
        const std::string who = run + "client-" + std::to_string(index);
        std::vector<std::size_t> decided; // the limits counted on this client's plan
        for (std::size_t l = 0; l < entries[index].size(); ++l)
            if (entries[index][l])
                decided.push_back(l);
        if (decided.empty())
            continue;
        std::vector<std::string> args{"EVALSHA", sha, std::to_string(decided.size())};
        for (const std::size_t l : decided)
            args.push_back(
                (*entries[index][l])[QStringLiteral("key_prefix")].toString().toStdString() + who);
        args.push_back(std::to_string(now));
        for (const std::size_t l : decided) {
            const QJsonObject &item = *entries[index][l];
            args.push_back(item[QStringLiteral("algorithm")].toString().toStdString());
            args.push_back(std::to_string(item[QStringLiteral("cost")].toInteger()));
            args.push_back(
                item[QStringLiteral("mode")].toString() == QLatin1String("shadow") ? "1" : "0");
            for (const QJsonValue p : item[QStringLiteral("parameters")].toArray()) {
                // A calendar limit's windows are the caller's to send (the manifest's
                // `calendar`), as the bundle's middleware does.
                if (p.isString() && item.contains(QStringLiteral("calendar"))) {
                    char windows[64];
                    const std::size_t size
                        = limiter::redisCalendarArgument(*configs[index][l], now, windows);
                    args.emplace_back(windows, size);
                    continue;
                }
                args.push_back(
                    p.isString() ? p.toString().toStdString() : std::to_string(p.toInteger()));
            }
        }
        const Reply reply = command(c, args);
        std::vector<double> fields(4 * decided.size());
        ASSERT_TRUE(reply && reply->type == REDIS_REPLY_STRING
            && limiter::unpackDoubles(std::string_view(reply->str, reply->len), fields))
            << example << ": "
            << (reply && reply->type == REDIS_REPLY_ERROR ? reply->str : "bad reply");
        auto [it, fresh] = local.try_emplace(who);
        if (fresh)
            for (const std::size_t l : decided)
                it->second.push_back(limiter::freshState(*configs[index][l]));
        std::vector<limiter::LimitRef> refs;
        for (std::size_t k = 0; k < decided.size(); ++k) {
            const RouteLimit &limit = designed.limits[qsizetype(decided[k])];
            refs.push_back({&*configs[index][decided[k]], &it->second[k], designed.costOf(limit),
                designed.modeOf(limit) == RouteMode::Shadow});
        }
        std::vector<limiter::Decision> expected(refs.size());
        const limiter::SetDecision set = limiter::decideAll(refs, now, expected);
        denied += !set.allowed;
        for (std::size_t l = 0; l < refs.size(); ++l) {
            ASSERT_EQ(fields[4 * l] == 0, expected[l].allowed)
                << example << " request " << n << " limit " << decided[l];
            ASSERT_EQ(std::int64_t(fields[4 * l + 1]), expected[l].remaining)
                << example << " request " << n;
        }
    }
    EXPECT_GT(denied, 0) << example << ": a trace that denies";
}

} // namespace

TEST(RedisBundle, ScriptsAndManifestDecideAsTheEngineForEveryExample)
{
    const int port = test::fixtureRedisPort();
    ASSERT_GT(port, 0) << "run through ctest: the 'redis' fixture sets QS_TEST_REDIS_PORT";
    std::unique_ptr<redisContext, ContextDeleter> c(
        redisConnectWithTimeout("127.0.0.1", port, timeval{2, 0}));
    ASSERT_TRUE(c && !c->err);

    const QDir examples(QStringLiteral(QS_EXAMPLES_DIR));
    int routesChecked = 0;
    for (const QString &name : examples.entryList({QStringLiteral("*.yaml")}, QDir::Files)) {
        const Policy policy = readPolicyFile(examples.filePath(name)).policy;
        const ExportResult bundle
            = exporterById(QStringLiteral("redis-bundle"))->exportPolicy(policy);
        ASSERT_FALSE(hasErrors(bundle.diagnostics)) << name.toStdString();
        const QJsonObject manifest
            = QJsonDocument::fromJson(file(bundle, QStringLiteral("manifest.json"))->content)
                  .object();

        std::map<QString, std::string> shaByScript;
        const QJsonObject scripts = manifest[QStringLiteral("scripts")].toObject();
        for (const QString &script : scripts.keys()) {
            const QJsonObject s = scripts[script].toObject();
            const ExportedFile *lua = file(bundle, s[QStringLiteral("file")].toString());
            ASSERT_TRUE(lua);
            const Reply loaded = command(c.get(), {"SCRIPT", "LOAD", lua->content.toStdString()});
            ASSERT_TRUE(loaded && loaded->type == REDIS_REPLY_STRING)
                << (loaded ? loaded->str : c->errstr);
            EXPECT_EQ(std::string(loaded->str, loaded->len),
                s[QStringLiteral("sha1")].toString().toStdString())
                << "Redis names the script by the manifest's SHA-1";
            shaByScript[script] = std::string(loaded->str, loaded->len);
        }

        const QJsonArray routes = manifest[QStringLiteral("routes")].toArray();
        ASSERT_EQ(routes.size(), policy.routes.size());
        for (qsizetype i = 0; i < routes.size(); ++i) {
            const QJsonObject route = routes[i].toObject();
            if (route.contains(QStringLiteral("limits"))) {
                checkSeveral(c.get(), shaByScript[route[QStringLiteral("script")].toString()],
                    route, policy.routes[i], policy.plans.names, name.toStdString());
                ++routesChecked;
                continue;
            }
            const auto config = *toAlgorithmConfig(policy.routes[i].limit());
            const std::string prefix = route[QStringLiteral("key_prefix")].toString().toStdString()
                + "bundle-test:" + std::to_string(::getpid()) + ":" + name.toStdString() + ":";
            std::map<std::string, limiter::AlgorithmState> local;
            std::mt19937_64 rng(std::uint64_t(i) + 1);
            std::exponential_distribution<double> gap(1.0 / 80'000.0);
            std::uniform_int_distribution<int> client(0, 2), cost(1, 3);
            limiter::Micros now = 1'700'000'000'000'000;
            for (int n = 0; n < 150; ++n) {
                now += limiter::Micros(gap(rng));
                const std::string key = prefix + "client-" + std::to_string(client(rng));
                const std::int64_t units = cost(rng);
                std::vector<std::string> args{"EVALSHA",
                    shaByScript[route[QStringLiteral("script")].toString()], "1", key,
                    std::to_string(units)};
                for (const QJsonValue p : route[QStringLiteral("parameters")].toArray())
                    args.push_back(std::to_string(p.toInteger()));
                args.push_back(std::to_string(now));
                const Reply reply = command(c.get(), args);
                double fields[4]; // code, remaining, wait_us, reset_after_us
                ASSERT_TRUE(reply && reply->type == REDIS_REPLY_STRING
                    && limiter::unpackDoubles(std::string_view(reply->str, reply->len), fields))
                    << name.toStdString() << " " << key << ": "
                    << (reply && reply->type == REDIS_REPLY_ERROR ? reply->str : "bad reply");
                auto [it, fresh] = local.try_emplace(key, limiter::freshState(config));
                const limiter::Decision expected = limiter::decide(config, it->second, now, units);
                ASSERT_EQ(fields[0] == 0, expected.allowed)
                    << name.toStdString() << " route " << i << " request " << n;
                ASSERT_EQ(std::int64_t(fields[1]), expected.remaining)
                    << name.toStdString() << " route " << i << " request " << n;
                ASSERT_EQ(std::int64_t(fields[3]), expected.resetAfter)
                    << name.toStdString() << " route " << i << " request " << n;
                // wait_us: Retry-After for a denial, the shaping delay for an admission.
                ASSERT_EQ(std::int64_t(fields[2]),
                    expected.allowed ? expected.delay : expected.retryAfter)
                    << name.toStdString() << " route " << i << " request " << n;
            }
            ++routesChecked;
        }
    }
    EXPECT_GE(routesChecked, 9) << "every example contributes its routes";
}
