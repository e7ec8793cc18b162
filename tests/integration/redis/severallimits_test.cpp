// Several limits of one request in one EVALSHA (several.lua) decide exactly as limitset.h's
// decideAll does in C++ and as the embedded engine's acquireAll does: the same per-limit
// decisions, the same request answer and deciding limit, and a denied request takes from no
// limit in Redis either. Random traces over all six
// algorithms, two to four limits, costs 1-2, shadow limits, keys shared between limits.
#include "limiter/algorithms/limitset.h"
#include "limiter/engine/engine.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisbackend.h"
#include "limiter/redis/redisnode.h"
#include "limiter/redis/redisscripts.h"
#include "tests/integration/redis/parity.h"
#include "tests/support/redisprocess.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <unistd.h>

#include <map>
#include <random>
#include <thread>

using namespace qs::limiter;

namespace {

constexpr Micros T0 = 1'700'000'040LL * kMicrosPerSecond;

// A server of the test's own: the Lua scripts, short timeouts (the fault tests wait for them).
RedisEndpoint faultEndpoint(int port)
{
    RedisEndpoint e;
    e.port = port;
    e.engine = RedisEngine::Lua;
    e.commandTimeout = 200 * kMicrosPerMilli;
    e.connectTimeout = 200 * kMicrosPerMilli;
    return e;
}

RedisEndpoint luaOnly()
{
    RedisEndpoint e;
    e.port = qs::test::fixtureRedisPort();
    e.engine = RedisEngine::Lua;
    e.commandTimeout = 2 * kMicrosPerSecond;
    return e;
}

} // namespace

TEST(SeveralLimitsInRedis, OneCallDecidesAsTheRuleDoesInCppAndInTheEngine)
{
    ASSERT_GT(qs::test::fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture";
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    std::mt19937_64 rng(7);
    const std::string run = "t:several:" + std::to_string(::getpid());
    int admitted = 0, denied = 0, shadowDenials = 0, compared = 0;
    for (int trace = 0; trace < 120; ++trace) {
        const std::size_t n = 2 + rng() % 3;
        std::vector<RedisRule> rules(n);
        std::vector<AlgorithmConfig> configs(n);
        std::vector<bool> shadow(n);
        std::vector<std::int64_t> costs(n);
        Engine engine;
        std::vector<RuleId> engineRules(n);
        for (std::size_t l = 0; l < n; ++l) {
            configs[l] = test::randomSmallConfig(rng);
            engineRules[l] = *engine.addRule(configs[l]).id;
            rules[l].keyPrefix = run + ":" + std::to_string(trace) + ":" + std::to_string(l);
            rules[l].config = configs[l];
            shadow[l] = rng() % 4 == 0;
            costs[l] = 1 + std::int64_t(rng() % 2);
        }
        // Two clients; the C++ side keeps a state per limit and client.
        std::map<std::pair<std::size_t, int>, AlgorithmState> states;
        Micros now = T0;
        for (int step = 0; step < 40; ++step) {
            now += Micros(rng() % 700'000);
            const int client = int(rng() % 2);
            // Not "c" + to_string(): GCC 12 warns falsely (-Wrestrict) on that concatenation.
            std::string key(1, 'c');
            key += std::to_string(client);
            std::vector<RedisLimitRequest> requests;
            std::vector<LimitRef> refs;
            std::vector<EngineLimit> inEngine;
            for (std::size_t l = 0; l < n; ++l) {
                requests.push_back({&rules[l], key, costs[l], shadow[l]});
                inEngine.push_back({engineRules[l], key, costs[l], shadow[l]});
                auto [it, fresh] = states.try_emplace({l, client}, freshState(configs[l]));
                refs.push_back({&configs[l], &it->second, costs[l], shadow[l]});
            }
            std::vector<Decision> inRedis(n), inCpp(n), byEngine(n);
            const SetDecision r = backend.acquireAll(requests, inRedis, now);
            const SetDecision c = decideAll(refs, now, inCpp);
            const SetDecision e = engine.acquireAll(inEngine, now, byEngine);
            ASSERT_EQ(e.allowed, c.allowed) << "trace " << trace << " step " << step;
            ASSERT_EQ(e.deciding, c.deciding) << "trace " << trace << " step " << step;
            ASSERT_EQ(r.allowed, c.allowed)
                << "trace " << trace << " step " << step << ": " << backend.lastError();
            ASSERT_EQ(r.deciding, c.deciding) << "trace " << trace << " step " << step;
            for (std::size_t l = 0; l < n; ++l) {
                ASSERT_EQ(inRedis[l].allowed, inCpp[l].allowed)
                    << "trace " << trace << " step " << step << " limit " << l;
                ASSERT_EQ(inRedis[l].remaining, inCpp[l].remaining) << "limit " << l;
                ASSERT_EQ(byEngine[l].allowed, inCpp[l].allowed) << "limit " << l;
                ASSERT_EQ(byEngine[l].remaining, inCpp[l].remaining) << "limit " << l;
                ASSERT_EQ(byEngine[l].retryAfter, inCpp[l].retryAfter) << "limit " << l;
                ASSERT_EQ(inRedis[l].allowed ? inRedis[l].delay : inRedis[l].retryAfter,
                    inCpp[l].allowed ? inCpp[l].delay : inCpp[l].retryAfter)
                    << "limit " << l;
            }
            ++compared;
            (c.allowed ? admitted : denied)++;
            shadowDenials += c.shadowDenials;
        }
    }
    // Both outcomes and the shadow path, or the comparison proves little.
    EXPECT_GT(admitted, 500);
    EXPECT_GT(denied, 500);
    EXPECT_GT(shadowDenials, 50);
    EXPECT_EQ(compared, admitted + denied);
}

// The rule's edge: a request the second limit denies leaves the first limit's key in Redis as
// it was, byte for byte.
TEST(SeveralLimitsInRedis, ADeniedRequestWritesNothing)
{
    ASSERT_GT(qs::test::fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture";
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const std::string run = "t:several-none:" + std::to_string(::getpid());
    RedisRule burst{run + ":burst", TokenBucketConfig{5, Rate{1, kMicrosPerMinute}}};
    RedisRule daily{run + ":daily", FixedWindowConfig{{1, kMicrosPerDay}}};
    const std::vector<RedisLimitRequest> request{{&burst, "k", 1, false}, {&daily, "k", 1, false}};
    std::vector<Decision> out(2);
    EXPECT_TRUE(backend.acquireAll(request, out, T0).allowed);
    EXPECT_EQ(out[0].remaining, 4);
    const SetDecision second = backend.acquireAll(request, out, T0 + 1);
    EXPECT_FALSE(second.allowed);
    EXPECT_EQ(second.deciding, 1);
    EXPECT_TRUE(out[0].allowed) << "the burst alone admits";
    const SetDecision third = backend.acquireAll(request, out, T0 + 2);
    EXPECT_FALSE(third.allowed);
    EXPECT_EQ(out[0].remaining, 3) << "4 left before the denied request, 3 if it took nothing";
}

// A caller's mistake is refused, never admitted, and nothing is written past its decisions.
TEST(SeveralLimitsInRedis, AMalformedCallIsRefused)
{
    ASSERT_GT(qs::test::fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture";
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{"t:several-bad", TokenBucketConfig{5, Rate{1, kMicrosPerMinute}}};
    std::vector<Decision> none;
    EXPECT_FALSE(backend.acquireAll({}, none, T0).allowed) << "no limits";
    const std::vector<RedisLimitRequest> two{{&rule, "a", 1, false}, {&rule, "b", 1, false}};
    std::vector<Decision> one(1);
    const SetDecision d = backend.acquireAll(two, one, T0);
    EXPECT_FALSE(d.allowed) << "no room for both decisions";
    EXPECT_FALSE(one[0].allowed);
    EXPECT_NE(backend.lastError().find("a decision for each"), std::string::npos);
}

// Redis gone: every limit's decision follows its rule's onStoreError (one that denies denies
// the request), and the next call after a restart decides again, the script loaded anew.
TEST(SeveralLimitsInRedis, AServerDownFollowsOnStoreErrorAndRecovers)
{
    qs::test::RedisProcess server;
    ASSERT_TRUE(server.start());
    RedisBackend backend(faultEndpoint(server.port()));
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule open{
        "t:down:open", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Allow};
    const RedisRule closed{
        "t:down:closed", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Deny};
    const std::vector<RedisLimitRequest> lenient{{&open, "k", 1, false}};
    const std::vector<RedisLimitRequest> both{{&open, "k", 1, false}, {&closed, "k", 1, false}};
    std::vector<Decision> out(2);
    ASSERT_TRUE(backend.acquireAll(both, out).allowed) << backend.lastError();

    server.stop();
    const SetDecision down = backend.acquireAll(both, out);
    EXPECT_FALSE(down.allowed) << "the deny-on-error limit denies the request";
    EXPECT_EQ(out[0].reason, Reason::StoreError);
    EXPECT_TRUE(out[0].failedOpen);
    EXPECT_FALSE(out[1].allowed);
    EXPECT_TRUE(backend.acquireAll(lenient, out).allowed) << "allow-on-error alone admits";
    EXPECT_FALSE(backend.lastError().empty());

    ASSERT_TRUE(server.start()) << "restart on port " << server.port();
    SetDecision back;
    for (int i = 0; i < 100; ++i) {
        back = backend.acquireAll(both, out);
        if (out[0].reason != Reason::StoreError)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(out[0].reason, Reason::StoreError) << backend.lastError();
    EXPECT_TRUE(back.allowed) << "a fresh server: several.lua loaded again";
}

namespace {

// One EVAL of a script on the fixture's Redis, arguments as given.
RedisReplyPtr evalScript(redisContext *c, std::string_view script,
    const std::vector<std::string> &keys, const std::vector<std::string> &argv)
{
    std::vector<std::string> args{"EVAL", std::string(script), std::to_string(keys.size())};
    args.insert(args.end(), keys.begin(), keys.end());
    args.insert(args.end(), argv.begin(), argv.end());
    std::vector<const char *> p;
    std::vector<size_t> len;
    for (const auto &a : args) {
        p.push_back(a.data());
        len.push_back(a.size());
    }
    return RedisReplyPtr(
        static_cast<redisReply *>(redisCommandArgv(c, int(p.size()), p.data(), len.data())));
}

// several.lua's six arguments of one limit.
std::vector<std::string> limitArguments(const AlgorithmConfig &config, std::int64_t cost)
{
    const ScriptParameters p = redisScriptParameterValues(config);
    std::vector<std::string> a{
        std::string(algorithmName(algorithmOf(config))), std::to_string(cost), "0"};
    for (int i = 0; i < 3; ++i)
        a.push_back(i < p.count ? std::to_string(p.values[i]) : std::string());
    return a;
}

// What a limit has left at `now`, asked with a request of cost 0 (which takes nothing).
std::int64_t remainingAt(
    redisContext *c, const std::string &key, const AlgorithmConfig &config, Micros now)
{
    std::vector<std::string> argv{std::to_string(now)};
    const auto limit = limitArguments(config, 0);
    argv.insert(argv.end(), limit.begin(), limit.end());
    RedisReplyPtr r = evalScript(c, redisSeveralScript(), {key}, argv);
    double fields[4] = {};
    if (!r || r->type != REDIS_REPLY_STRING
        || !unpackDoubles(std::string_view(r->str, r->len), std::span<double>(fields)))
        return -1;
    return std::int64_t(fields[1]);
}

// Request A is charged in its slot ('images'), request B writes the same key, then A's charge is
// given back (the key changed since: arithmetically). Returns what the limit has left at B's
// time, against what it would have had if A had never been charged.
std::pair<std::int64_t, std::int64_t> giveBackAfterAnotherWrite(
    redisContext *c, const std::string &key, const AlgorithmConfig &config, Micros a, Micros b)
{
    std::vector<std::string> argvA{std::to_string(a)};
    const auto limit = limitArguments(config, 1);
    argvA.insert(argvA.end(), limit.begin(), limit.end());
    argvA.push_back("images");
    RedisReplyPtr charged = evalScript(c, redisSeveralScript(), {key}, argvA);
    if (!charged || charged->type != REDIS_REPLY_ARRAY || charged->elements != 4)
        return {-1, -1};
    auto text = [](const redisReply *e) {
        return e->type == REDIS_REPLY_INTEGER ? std::to_string(e->integer)
                                              : std::string(e->str, e->len);
    };
    std::vector<std::string> argvB{std::to_string(b)};
    argvB.insert(argvB.end(), limit.begin(), limit.end());
    evalScript(c, redisSeveralScript(), {key}, argvB);
    const ScriptParameters p = redisScriptParameterValues(config);
    RedisReplyPtr given = evalScript(c, redisSeveralRefundScript(), {key},
        {std::string(algorithmName(algorithmOf(config))), std::to_string(p.values[0]),
            std::to_string(p.values[1]), "1", text(charged->element[1]), text(charged->element[2]),
            text(charged->element[3])});
    if (!given || given->type != REDIS_REPLY_ARRAY || given->element[0]->integer != 2)
        return {-2, -2};
    // The rule's world: only B.
    AlgorithmState state = freshState(config);
    decide(config, state, b, 1);
    return {remainingAt(c, key, config, b), peek(config, state, b).remaining};
}

} // namespace

// The over-admission bound of limits in several Cluster slots (docs/redis-layout.md): a give-back
// that finds the key written since takes the units off arithmetically. Windows give back
// exactly; a token bucket that refilled to full while the charge was held comes out `cost`
// fuller than the rule's (here 1 unit: the bound is reached), and never more.
TEST(SeveralLimitsInRedis, AGiveBackAfterAnotherWriteCreditsAtMostTheCost)
{
    ASSERT_GT(qs::test::fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture";
    std::unique_ptr<redisContext, decltype(&redisFree)> c(
        redisConnect("127.0.0.1", qs::test::fixtureRedisPort()), &redisFree);
    ASSERT_TRUE(c && !c->err);
    const std::string run = "t:several-giveback:" + std::to_string(::getpid());
    const TokenBucketConfig bucket{2, Rate{1, kMicrosPerSecond}};
    // A at T0 takes one of two tokens; by B, ten seconds on, the bucket is full again (the cap
    // swallowed A's charge); B takes one; A's give-back adds one: full, where the rule has one.
    const auto [bucketLeft, bucketRule] = giveBackAfterAnotherWrite(
        c.get(), run + ":bucket", bucket, T0, T0 + 10 * kMicrosPerSecond);
    EXPECT_EQ(bucketRule, 1);
    EXPECT_EQ(bucketLeft, 2) << "one unit over the rule: the cost, the bound";
    const auto [gcraLeft, gcraRule] = giveBackAfterAnotherWrite(c.get(), run + ":gcra",
        GcraConfig{Rate{1, kMicrosPerSecond}, 2}, T0, T0 + 10 * kMicrosPerSecond);
    EXPECT_GE(gcraLeft, gcraRule);
    EXPECT_LE(gcraLeft - gcraRule, 1) << "at most the cost over the rule";
    // Within one window, counts commute: exact.
    const auto [windowLeft, windowRule] = giveBackAfterAnotherWrite(c.get(), run + ":window",
        FixedWindowConfig{{5, 60 * kMicrosPerSecond}}, T0, T0 + kMicrosPerSecond);
    EXPECT_EQ(windowLeft, windowRule);
    EXPECT_EQ(windowRule, 4);
    const auto [counterLeft, counterRule] = giveBackAfterAnotherWrite(c.get(), run + ":counter",
        SlidingWindowCounterConfig{{5, 60 * kMicrosPerSecond}}, T0, T0 + kMicrosPerSecond);
    EXPECT_EQ(counterLeft, counterRule);
}

// A server that stalls past the command timeout (DEBUG SLEEP): the request follows each limit's
// onStoreError within about one timeout, and is never replayed (several.lua may have run);
// once the server answers again, the next request is decided.
TEST(SeveralLimitsInRedis, AStalledServerTimesOutAsTheLimitsSayAndIsNotReplayed)
{
    qs::test::RedisProcess server({"--enable-debug-command", "yes"});
    ASSERT_TRUE(server.start());
    RedisBackend backend(faultEndpoint(server.port()));
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule open{
        "t:stall:open", FixedWindowConfig{{100, kMicrosPerDay}}, StoreErrorPolicy::Allow};
    const RedisRule closed{
        "t:stall:closed", FixedWindowConfig{{100, kMicrosPerDay}}, StoreErrorPolicy::Deny};
    const std::vector<RedisLimitRequest> both{{&open, "k", 1, false}, {&closed, "k", 1, false}};
    std::vector<Decision> out(2);
    ASSERT_TRUE(backend.acquireAll(both, out, T0).allowed) << backend.lastError();

    std::thread sleeper([&] {
        std::unique_ptr<redisContext, decltype(&redisFree)> admin(
            redisConnect("127.0.0.1", server.port()), &redisFree);
        if (admin && !admin->err)
            freeReplyObject(redisCommand(admin.get(), "DEBUG SLEEP 0.8"));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100)); // the sleep has begun
    const auto before = std::chrono::steady_clock::now();
    const SetDecision stalled = backend.acquireAll(both, out, T0 + 1);
    const auto waited = std::chrono::steady_clock::now() - before;
    sleeper.join();
    EXPECT_FALSE(stalled.allowed) << "the deny-on-error limit denies";
    EXPECT_EQ(out[0].reason, Reason::StoreError);
    EXPECT_TRUE(out[0].failedOpen);
    EXPECT_EQ(out[1].reason, Reason::StoreError);
    EXPECT_LT(waited, std::chrono::milliseconds(700)) << "about one command timeout, not the sleep";

    SetDecision after;
    for (int i = 0; i < 100; ++i) {
        after = backend.acquireAll(both, out, T0 + 2);
        if (out[0].reason != Reason::StoreError)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(after.allowed) << backend.lastError();
    // The stalled call ran once when the server woke (it was sent), never twice: 3 at most.
    EXPECT_LE(out[1].limit - out[1].remaining, 3);
    EXPECT_GE(out[1].limit - out[1].remaining, 2);
}

// A limit's key holding what no algorithm wrote: the request is denied as a data error, whatever
// the limits' onStoreError says, and the other limit takes nothing.
TEST(SeveralLimitsInRedis, CorruptStateInOneLimitDeniesTheRequestAndTakesFromNone)
{
    ASSERT_GT(qs::test::fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture";
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const std::string run = "t:several-corrupt:" + std::to_string(::getpid());
    const RedisRule burst{
        run + ":burst", TokenBucketConfig{5, Rate{1, kMicrosPerMinute}}, StoreErrorPolicy::Allow};
    const RedisRule daily{
        run + ":daily", FixedWindowConfig{{10, kMicrosPerDay}}, StoreErrorPolicy::Allow};
    std::unique_ptr<redisContext, decltype(&redisFree)> admin(
        redisConnect("127.0.0.1", qs::test::fixtureRedisPort()), &redisFree);
    ASSERT_TRUE(admin && !admin->err);
    const std::string dailyKey = backend.stateKey(daily, "k");
    freeReplyObject(
        redisCommand(admin.get(), "SET %b not-a-window", dailyKey.data(), dailyKey.size()));
    const std::vector<RedisLimitRequest> request{{&burst, "k", 1, false}, {&daily, "k", 1, false}};
    std::vector<Decision> out(2);
    const SetDecision d = backend.acquireAll(request, out, T0);
    EXPECT_FALSE(d.allowed) << "bad data never admits, even with onStoreError allow";
    EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos) << backend.lastError();
    // The burst took nothing: repaired, the next request finds all 5 tokens.
    freeReplyObject(redisCommand(admin.get(), "DEL %b", dailyKey.data(), dailyKey.size()));
    EXPECT_TRUE(backend.acquireAll(request, out, T0 + 1).allowed) << backend.lastError();
    EXPECT_EQ(out[0].remaining, 4);
}

// A wrong password: connect fails with a message that names the user and not the secret, and
// a request then follows each limit's onStoreError.
TEST(SeveralLimitsInRedis, AWrongPasswordIsAStoreErrorWithoutTheSecret)
{
    qs::test::RedisProcess server({"--requirepass", "right-secret"});
    ASSERT_TRUE(server.start());
    RedisEndpoint endpoint;
    endpoint.port = server.port();
    endpoint.engine = RedisEngine::Lua;
    endpoint.password = "wrong-secret-xyz";
    endpoint.connectTimeout = 200 * kMicrosPerMilli;
    RedisBackend backend(endpoint);
    EXPECT_FALSE(backend.connect());
    const RedisRule open{
        "t:pw:open", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Allow};
    const RedisRule closed{
        "t:pw:closed", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Deny};
    const std::vector<RedisLimitRequest> both{{&open, "k", 1, false}, {&closed, "k", 1, false}};
    std::vector<Decision> out(2);
    EXPECT_FALSE(backend.acquireAll(both, out).allowed);
    EXPECT_EQ(out[0].reason, Reason::StoreError);
    EXPECT_TRUE(out[0].allowed);
    EXPECT_FALSE(out[1].allowed);
    EXPECT_EQ(backend.lastError().find("wrong-secret-xyz"), std::string::npos)
        << backend.lastError();
    EXPECT_FALSE(backend.lastError().empty());
}
