// A policy with plans in Redis: the example price list (resources/examples/saas-plans.yaml, three
// plans from an API-key map, a per-second burst and a calendar-month quota in Europe/Berlin)
// decided by the Quota Studio module and by the Lua scripts as by the policy's own limits, each
// plan on its own numbers and keys; and the load generator (the Monitor tab's demo) writing each
// plan's keys where the monitor reads them.
#include "limiter/algorithms/limitset.h"
#include "limiter/redis/redisbackend.h"
#include "model/monitor/layoutdecoder.h"
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/policy/policyreader.h"
#include "model/redis/loadgenerator.h"
#include "tests/integration/redis/parity.h"
#include "tests/support/rediscommand.h"
#include "tests/support/redisprocess.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <QDateTime>
#include <QDir>

#include <map>
#include <memory>
#include <random>

using namespace qs;
using limiter::Decision;
using limiter::Micros;
using limiter::RedisBackend;
using limiter::RedisEngine;
using limiter::RedisLimitRequest;
using limiter::test::kParityStart;
using limiter::test::uniquePrefix;

namespace {

using Reply = test::RedisReply;

Reply command(redisContext *c, const std::vector<std::string> &args)
{
    return test::redisRun(c, args);
}

std::string text(const Reply &r)
{
    return test::replyText(r);
}

Policy saasPlans(const std::string &prefix)
{
    const PolicyReadResult read
        = readPolicyFile(QDir(QStringLiteral(QS_EXAMPLES_DIR)).filePath("saas-plans.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    Policy policy = read.policy;
    policy.redis.prefix = QString::fromStdString(prefix);
    return policy;
}

limiter::RedisEndpoint server(RedisEngine engine)
{
    limiter::RedisEndpoint e;
    e.port = test::fixtureRedisPort();
    e.engine = engine;
    e.commandTimeout = 2 * limiter::kMicrosPerSecond; // decisions judged, not latency
    return e;
}

class RedisPlans : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_GT(test::fixtureRedisPort(), 0) << "run through ctest: the 'redis_module' "
                                                  "fixture sets QS_TEST_REDIS_PORT";
        admin = test::connectRedis(test::fixtureRedisPort());
        ASSERT_TRUE(admin);
    }
    test::RedisContext admin;
};

TEST_F(RedisPlans, EachPlanDecidesInTheModuleAsInLuaAndAsItsOwnNumbers)
{
    const std::string run = uniquePrefix("plans");
    const Policy viaModulePolicy = saasPlans(run + "m"), viaLuaPolicy = saasPlans(run + "l");
    const auto moduleRoutes = loadRoutesFor(viaModulePolicy, {});
    const auto luaRoutes = loadRoutesFor(viaLuaPolicy, {});
    ASSERT_TRUE(moduleRoutes && luaRoutes);
    // One route, a LoadRoute per plan: free and pro with both limits, enterprise with none.
    ASSERT_EQ(moduleRoutes->size(), 3u);
    EXPECT_EQ((*moduleRoutes)[0].plan, "free");
    EXPECT_EQ((*moduleRoutes)[1].limits.size(), 2u);
    EXPECT_TRUE((*moduleRoutes)[2].limits.empty()) << "enterprise is unlimited on both";

    RedisBackend viaModule(server(RedisEngine::Module)), viaLua(server(RedisEngine::Lua));
    ASSERT_TRUE(viaModule.connect()) << viaModule.lastError();
    ASSERT_TRUE(viaLua.connect()) << viaLua.lastError();
    const Route &search = viaModulePolicy.routes.front();

    std::mt19937_64 rng(43);
    int admitted = 0, denied = 0;
    for (std::size_t p = 0; p < 2; ++p) {
        const LoadRoute &m = (*moduleRoutes)[p], &l = (*luaRoutes)[p];
        const QString plan = QString::fromStdString(m.plan);
        // The reference: the policy's limits with the plan's numbers (specForPlan), in C++.
        std::vector<limiter::AlgorithmConfig> configs;
        for (const RouteLimit &limit : search.limits)
            configs.push_back(*toAlgorithmConfig(*specForPlan(limit, plan)));
        std::map<std::pair<std::size_t, int>, limiter::AlgorithmState> states;
        Micros now = kParityStart;
        for (int step = 0; step < 400; ++step) {
            now += Micros(rng() % (p == 0 ? 400'000 : 40'000));
            const int client = int(rng() % 3);
            const std::string key = "k-" + std::to_string(client);
            std::vector<RedisLimitRequest> mq, lq;
            std::vector<limiter::LimitRef> refs;
            for (std::size_t i = 0; i < configs.size(); ++i) {
                mq.push_back({&m.limits[i], key, 1, false});
                lq.push_back({&l.limits[i], key, 1, false});
                auto [it, fresh] = states.try_emplace({i, client}, freshState(configs[i]));
                refs.push_back({&configs[i], &it->second, 1, false});
            }
            std::vector<Decision> dm(configs.size()), dl(configs.size()), dc(configs.size());
            const auto sm = viaModule.acquireAll(mq, dm, now);
            const auto sl = viaLua.acquireAll(lq, dl, now);
            const auto sc = limiter::decideAll(refs, now, dc);
            const std::string where = m.plan + " step " + std::to_string(step);
            ASSERT_EQ(sm.allowed, sc.allowed) << where << ": " << viaModule.lastError();
            ASSERT_EQ(sl.allowed, sc.allowed) << where << ": " << viaLua.lastError();
            for (std::size_t i = 0; i < configs.size(); ++i) {
                ASSERT_EQ(dm[i].remaining, dc[i].remaining) << where << " limit " << i;
                ASSERT_EQ(dl[i].remaining, dc[i].remaining) << where << " limit " << i;
                ASSERT_EQ(dm[i].retryAfter, dc[i].retryAfter) << where << " limit " << i;
                // The trace runs on its own clock, Redis expires on the real one: keep every
                // key of this step until the end.
                command(admin.get(), {"PERSIST", viaModule.stateKey(m.limits[i], key)});
                command(admin.get(), {"PERSIST", viaLua.stateKey(l.limits[i], key)});
            }
            (sc.allowed ? admitted : denied)++;
        }
        // Each plan's keys are its own, named as docs/redis-layout.md says, and the module left
        // the bytes the scripts left.
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const std::string name = search.limits[qsizetype(i)].name.toStdString();
            const std::string moduleKey = run + "m:search:" + name + ":" + m.plan + ":k-0";
            const std::string luaKey = run + "l:search:" + name + ":" + m.plan + ":k-0";
            EXPECT_EQ(viaModule.stateKey(m.limits[i], "k-0"), moduleKey);
            EXPECT_EQ(text(command(admin.get(), {"GET", moduleKey})),
                text(command(admin.get(), {"GET", luaKey})))
                << moduleKey;
            EXPECT_FALSE(text(command(admin.get(), {"GET", moduleKey})).empty()) << moduleKey;
        }
    }
    EXPECT_GT(admitted, 200);
    EXPECT_GT(denied, 100) << "free's burst of 10 at 1/s denies";
    EXPECT_EQ(viaModule.engineInUse(), RedisEngine::Module);
    EXPECT_NE(text(command(admin.get(), {"INFO", "commandstats"})).find("cmdstat_qs.decideall"),
        std::string::npos);
}

TEST_F(RedisPlans, TheLoadGeneratorWritesEachPlansKeysWhereTheMonitorReadsThem)
{
    const std::string run = uniquePrefix("plans-load");
    const Policy policy = saasPlans(run);
    LoadPlan load;
    load.endpoint = server(RedisEngine::Auto);
    load.routes = *loadRoutesFor(policy, {});
    load.rps = 0;
    load.clients = 5;
    load.durationSeconds = 0.5;
    load.connections = 1;
    const std::atomic<bool> stop{false};
    const LoadResult result = runLoad(load, stop);
    ASSERT_EQ(result.errors, 0u) << result.firstError;
    ASSERT_GT(result.requests, 30u);
    // A third of the requests are enterprise's, admitted without asking Redis.
    EXPECT_NEAR(double(result.unlimited), double(result.requests) / 3, 2.0);
    EXPECT_GT(result.denied, 0u) << "free's and pro's bursts deny a flat-out run";

    const Route &search = policy.routes.front();
    const qint64 nowUs = QDateTime::currentMSecsSinceEpoch() * 1000;
    // Each limit's quota on each plan, as the example gives it.
    const std::map<std::string, qint64> limits{
        {"burst@free", 10}, {"burst@pro", 100}, {"monthly@free", 1000}, {"monthly@pro", 100000}};
    for (qsizetype limit = 0; limit < search.limits.size(); ++limit)
        for (const QString &plan : {QStringLiteral("free"), QStringLiteral("pro")}) {
            const auto decoder = makeLayoutDecoder(policy, search, limit, plan);
            ASSERT_TRUE(decoder) << decoder.error().toStdString();
            const Reply keys = command(admin.get(),
                {"SCAN", "0", "MATCH", (*decoder)->scanPattern().toStdString(), "COUNT", "100000"});
            ASSERT_TRUE(keys && keys->type == REDIS_REPLY_ARRAY && keys->elements == 2);
            const redisReply *found = keys->element[1];
            const std::string where
                = search.limits[limit].name.toStdString() + "@" + plan.toStdString();
            EXPECT_EQ(found->elements, 5u) << where << ": one key per client";
            for (std::size_t k = 0; k < found->elements; ++k) {
                const QByteArray key(found->element[k]->str, qsizetype(found->element[k]->len));
                ASSERT_TRUE((*decoder)->accepts(key)) << key.toStdString();
                const Reply value = command(admin.get(), {"GET", key.toStdString()});
                RespValue reply;
                reply.type = RespValue::Type::String;
                reply.text = QByteArray::fromStdString(text(value));
                const KeyQuota quota = (*decoder)->decode(key, {reply}, nowUs);
                ASSERT_EQ(quota.status, KeyQuota::Status::Read)
                    << key.toStdString() << ": " << quota.why.toStdString();
                EXPECT_EQ(quota.limit, limits.at(where)) << key.toStdString();
                EXPECT_LT(quota.remaining, quota.limit) << key.toStdString();
            }
        }
    // Enterprise is unlimited on both limits: nothing is kept for it.
    const Reply enterprise = command(
        admin.get(), {"SCAN", "0", "MATCH", run + ":search:*:enterprise:*", "COUNT", "100000"});
    ASSERT_TRUE(enterprise && enterprise->elements == 2);
    EXPECT_EQ(enterprise->element[1]->elements, 0u);
}

} // namespace
