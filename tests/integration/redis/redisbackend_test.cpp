// The Redis backend against real redis-servers: exact parity with the embedded engine,
// atomicity under concurrent connections, recovery from script flushes and server crashes,
// TTLs, authentication, and bad data that must never turn into admissions.
#include "limiter/engine/engine.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisbackend.h"
#include "tests/support/redisprocess.h"

#include "tests/integration/redis/parity.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <random>
#include <thread>

using namespace qs::limiter;
using qs::test::fixtureRedisPort;
using qs::test::RedisProcess;

namespace {

constexpr Micros kStart = test::kParityStart;

struct ContextDeleter {
    void operator()(redisContext *c) const { redisFree(c); }
};
using Context = std::unique_ptr<redisContext, ContextDeleter>;

Context rawConnection(int port)
{
    return Context(redisConnect("127.0.0.1", port));
}

std::string run(redisContext *c, const std::vector<std::string> &args, long long *integer = nullptr)
{
    std::vector<const char *> argv;
    std::vector<size_t> lens;
    for (const auto &a : args) {
        argv.push_back(a.data());
        lens.push_back(a.size());
    }
    auto *r = static_cast<redisReply *>(
        redisCommandArgv(c, int(argv.size()), argv.data(), lens.data()));
    std::string text;
    if (r) {
        if (r->str)
            text.assign(r->str, r->len);
        if (integer)
            *integer = r->integer;
        freeReplyObject(r);
    }
    return text;
}

RedisEndpoint fixture()
{
    RedisEndpoint e;
    e.port = fixtureRedisPort();
    return e;
}

RedisEndpoint luaOnly()
{
    RedisEndpoint e = fixture();
    e.engine = RedisEngine::Lua;
    e.commandTimeout = 2 * kMicrosPerSecond; // parity judges decisions, not a loaded machine
    return e;
}

using Named = test::NamedConfig;
using test::parityConfigs;
using test::uniquePrefix;

class RedisBackendTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_GT(fixtureRedisPort(), 0) << "run through ctest: the 'redis' fixture sets "
                                            "QS_TEST_REDIS_PORT";
    }
};

} // namespace

TEST_F(RedisBackendTest, DecidesExactlyAsTheEmbeddedEngineOnRandomTraces)
{
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const Context admin = rawConnection(fixtureRedisPort());
    test::checkParityOnRandomTraces(test::through(backend, admin.get()), "lua-random");
    test::checkParityOnCalendarTraces(test::through(backend, admin.get()), "lua-calendar");
}

// The same parity on traces aimed at the edges (tests/unit/limiter/trace.h, edgeTrace): costs
// the limit can never admit, late callers, bursts on and one µs around window edges, and the
// extreme rates and windows of extremeConfigs(), for all six algorithms.
TEST_F(RedisBackendTest, DecidesExactlyAsTheEmbeddedEngineAtTheEdges)
{
    RedisBackend backend(luaOnly());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const Context admin = rawConnection(fixtureRedisPort());
    test::checkParityAtTheEdges(test::through(backend, admin.get()), "lua-edges");
}

TEST_F(RedisBackendTest, BatchGivesTheSameDecisionsAsOneByOne)
{
    RedisBackend backend(fixture());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule a{uniquePrefix("batch-a"), GcraConfig{Rate{2, kMicrosPerSecond}, 5}};
    const RedisRule b{uniquePrefix("batch-b"), GcraConfig{Rate{2, kMicrosPerSecond}, 5}};
    std::vector<RedisRequest> batch;
    for (int i = 0; i < 40; ++i)
        batch.push_back({&a, i % 2 ? "x" : "y", 1, kStart + i});
    const auto decisions = backend.acquireBatch(batch);
    ASSERT_EQ(decisions.size(), 40u);
    for (int i = 0; i < 40; ++i) {
        const Decision one = backend.acquire(b, i % 2 ? "x" : "y", 1, kStart + i);
        EXPECT_EQ(decisions[std::size_t(i)].allowed, one.allowed) << i;
        EXPECT_EQ(decisions[std::size_t(i)].remaining, one.remaining) << i;
    }
}

TEST_F(RedisBackendTest, EightConnectionsOnOneKeyNeverOverAdmit)
{
    const std::string prefix = uniquePrefix("atomic");
    const RedisRule bucket{prefix + "-tb", TokenBucketConfig{50, Rate{1000, kMicrosPerSecond}}};
    const RedisRule gcra{prefix + "-gcra", GcraConfig{Rate{1000, kMicrosPerSecond}, 50}};
    Context clock = rawConnection(fixtureRedisPort());
    auto redisNow = [&] {
        auto *r = static_cast<redisReply *>(redisCommand(clock.get(), "TIME"));
        const Micros t
            = std::stoll(r->element[0]->str) * kMicrosPerSecond + std::stoll(r->element[1]->str);
        freeReplyObject(r);
        return t;
    };
    std::atomic<long> admittedBucket{0}, admittedGcra{0}, errors{0};
    const Micros begin = redisNow();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            RedisBackend backend(fixture());
            if (!backend.connect()) {
                ++errors;
                return;
            }
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
            while (std::chrono::steady_clock::now() < until) {
                const Decision a = backend.acquire(bucket, "hot");
                const Decision b = backend.acquire(gcra, "hot");
                errors += (a.reason == Reason::StoreError) + (b.reason == Reason::StoreError);
                admittedBucket += a.allowed;
                admittedGcra += b.allowed;
            }
        });
    for (auto &t : threads)
        t.join();
    const double elapsed = double(redisNow() - begin);
    EXPECT_EQ(errors.load(), 0);
    const double bound = 50 + 1000.0 * elapsed / 1e6;
    EXPECT_LE(double(admittedBucket.load()), bound) << "elapsed " << elapsed << " µs";
    EXPECT_LE(double(admittedGcra.load()), bound) << "elapsed " << elapsed << " µs";
    // Not vacuous: at ~1000/s for ~2 s both admitted well beyond their burst.
    EXPECT_GT(admittedBucket.load(), 500);
    EXPECT_GT(admittedGcra.load(), 500);
}

TEST_F(RedisBackendTest, ScriptFlushInTheMiddleIsHealedByOneReload)
{
    RedisBackend backend(fixture());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{uniquePrefix("flush"), TokenBucketConfig{100, Rate{1, kMicrosPerSecond}}};
    EXPECT_TRUE(backend.acquire(rule, "k").allowed);
    Context admin = rawConnection(fixtureRedisPort());
    run(admin.get(), {"SCRIPT", "FLUSH"});
    const Decision d = backend.acquire(rule, "k");
    EXPECT_TRUE(d.allowed) << backend.lastError();
    EXPECT_EQ(d.reason, Reason::None);
    EXPECT_EQ(d.remaining, 98);
}

TEST(RedisBackendFaults, ServerDownFollowsOnStoreErrorAndRecoversByItself)
{
    RedisProcess server;
    ASSERT_TRUE(server.start());
    RedisEndpoint endpoint;
    endpoint.port = server.port();
    endpoint.commandTimeout = 200 * kMicrosPerMilli;
    endpoint.connectTimeout = 200 * kMicrosPerMilli;
    RedisBackend backend(endpoint);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule open{
        "t:faults:open", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Allow};
    const RedisRule closed{
        "t:faults:closed", GcraConfig{Rate{10, kMicrosPerSecond}, 10}, StoreErrorPolicy::Deny};
    ASSERT_TRUE(backend.acquire(open, "k").allowed);

    server.stop();
    const auto before = std::chrono::steady_clock::now();
    const Decision failOpen = backend.acquire(open, "k");
    const Decision failClosed = backend.acquire(closed, "k");
    const auto waited = std::chrono::steady_clock::now() - before;
    EXPECT_EQ(failOpen.reason, Reason::StoreError);
    EXPECT_TRUE(failOpen.allowed);
    EXPECT_TRUE(failOpen.failedOpen);
    EXPECT_EQ(failClosed.reason, Reason::StoreError);
    EXPECT_FALSE(failClosed.allowed);
    EXPECT_FALSE(backend.lastError().empty());
    // A hang detector, not a performance figure: both calls together stay near one timeout.
    EXPECT_LT(waited, std::chrono::seconds(3));

    ASSERT_TRUE(server.start()) << "restart on port " << server.port();
    Decision recovered;
    for (int i = 0; i < 100; ++i) {
        recovered = backend.acquire(open, "k");
        if (recovered.reason != Reason::StoreError)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_NE(recovered.reason, Reason::StoreError) << backend.lastError();
    EXPECT_TRUE(recovered.allowed);
}

TEST(RedisBackendFaults, AuthWithPasswordAndAclUserWithoutLeakingSecrets)
{
    RedisProcess server({"--requirepass", "s3cret-default"});
    ASSERT_TRUE(server.start());
    RedisEndpoint e;
    e.port = server.port();
    e.password = "s3cret-default";
    {
        RedisBackend backend(e);
        ASSERT_TRUE(backend.connect()) << backend.lastError();
        const RedisRule rule{"t:auth", GcraConfig{Rate{1, kMicrosPerSecond}, 1}};
        EXPECT_TRUE(backend.acquire(rule, "k").allowed);
    }
    Context admin = rawConnection(server.port());
    run(admin.get(), {"AUTH", "s3cret-default"});
    run(admin.get(), {"ACL", "SETUSER", "gateway", "on", ">gw-pass", "~*", "+@all"});
    e.user = "gateway";
    e.password = "gw-pass";
    {
        RedisBackend backend(e);
        EXPECT_TRUE(backend.connect()) << backend.lastError();
    }
    e.password = "wrong-pass-xyz";
    RedisBackend refused(e);
    EXPECT_FALSE(refused.connect());
    EXPECT_NE(refused.lastError().find("refused AUTH for user 'gateway'"), std::string::npos)
        << refused.lastError();
    EXPECT_EQ(refused.lastError().find("wrong-pass-xyz"), std::string::npos);
}

TEST_F(RedisBackendTest, SelectsTheConfiguredDatabase)
{
    RedisEndpoint e = fixture();
    e.db = 3;
    RedisBackend backend(e);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{uniquePrefix("db"), GcraConfig{Rate{1, kMicrosPerSecond}, 1}};
    backend.acquire(rule, "k");
    Context admin = rawConnection(fixtureRedisPort());
    long long exists = -1;
    run(admin.get(), {"EXISTS", backend.stateKey(rule, "k")}, &exists);
    EXPECT_EQ(exists, 0) << "not in db 0";
    run(admin.get(), {"SELECT", "3"});
    run(admin.get(), {"EXISTS", backend.stateKey(rule, "k")}, &exists);
    EXPECT_EQ(exists, 1) << "in db 3";
}

TEST_F(RedisBackendTest, EveryKeyHasATtlAndIdleKeysDisappearWhenFresh)
{
    RedisBackend backend(fixture());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    Context admin = rawConnection(fixtureRedisPort());
    for (const Named &n : parityConfigs()) {
        const RedisRule rule{uniquePrefix(n.name), n.config};
        ASSERT_TRUE(backend.acquire(rule, "k").allowed) << n.name;
        long long ttl = 0;
        run(admin.get(), {"PTTL", backend.stateKey(rule, "k")}, &ttl);
        EXPECT_GT(ttl, 0) << n.name;
    }
    // GCRA 20/s, burst 1: fresh 50 ms after a request; with Redis time the key then expires.
    const RedisRule quick{uniquePrefix("idle"), GcraConfig{Rate{20, kMicrosPerSecond}, 1}};
    ASSERT_TRUE(backend.acquire(quick, "k").allowed);
    long long ttl = 0, exists = 1;
    run(admin.get(), {"PTTL", backend.stateKey(quick, "k")}, &ttl);
    EXPECT_GT(ttl, 0);
    EXPECT_LE(ttl, 50);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    run(admin.get(), {"EXISTS", backend.stateKey(quick, "k")}, &exists);
    EXPECT_EQ(exists, 0);
}

TEST_F(RedisBackendTest, MetricsCountAllowedAndDeniedPerSecondWithABoundedTtl)
{
    RedisBackend backend(fixture());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    RedisRule rule{uniquePrefix("metrics"), GcraConfig{Rate{1, kMicrosPerSecond}, 2}};
    rule.metrics = true;
    // Five decisions early in one second of the local clock, which names the metrics key.
    const auto sinceEpoch = [] { return std::chrono::system_clock::now().time_since_epoch(); };
    while (std::chrono::duration_cast<std::chrono::milliseconds>(sinceEpoch()).count() % 1000 > 500)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto second = std::chrono::duration_cast<std::chrono::seconds>(sinceEpoch()).count();
    for (int i = 0; i < 5; ++i)
        backend.acquire(rule, "k");
    Context admin = rawConnection(fixtureRedisPort());
    const std::string key = rule.keyPrefix + ":~metrics:" + std::to_string(second);
    // Counted in the backend: the script touches only its declared key.
    long long exists = -1;
    run(admin.get(), {"EXISTS", key}, &exists);
    EXPECT_EQ(exists, 0) << "the script touched a key it did not declare";
    backend.flushMetrics();
    EXPECT_EQ(run(admin.get(), {"HGET", key, "a"}), "2");
    EXPECT_EQ(run(admin.get(), {"HGET", key, "d"}), "3");
    long long ttl = 0;
    run(admin.get(), {"TTL", key}, &ttl);
    EXPECT_GT(ttl, 0);
    EXPECT_LE(ttl, 120);

    // An explicit clock counts into its own second; a later call adds a past second by itself.
    const Micros now = kStart + 5 * kMicrosPerSecond + 1234;
    backend.acquire(rule, "explicit", 1, now);
    backend.acquire(rule, "k");
    const std::string past = rule.keyPrefix + ":~metrics:" + std::to_string(now / kMicrosPerSecond);
    EXPECT_EQ(run(admin.get(), {"HGET", past, "a"}), "1");
    // Several backends (one per thread) add up.
    RedisBackend other(fixture());
    ASSERT_TRUE(other.connect()) << other.lastError();
    other.acquire(rule, "explicit", 1, now);
    other.flushMetrics();
    EXPECT_EQ(run(admin.get(), {"HGET", past, "a"}), "2");
}

// 10 per second, in windows of one second.
template <class Config>
Config windowed()
{
    Config c;
    c.limit = 10;
    c.window = kMicrosPerSecond;
    return c;
}

TEST_F(RedisBackendTest, BadDataIsAClearErrorAndNeverAnAdmission)
{
    RedisBackend backend(fixture());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    Context admin = rawConnection(fixtureRedisPort());
    // onStoreError says allow: bad DATA must still deny.
    const RedisRule rule{uniquePrefix("bad"), TokenBucketConfig{10, Rate{1, kMicrosPerSecond}},
        StoreErrorPolicy::Allow};

    run(admin.get(), {"LPUSH", backend.stateKey(rule, "list"), "x"});
    Decision d = backend.acquire(rule, "list");
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.reason, Reason::StoreError);
    EXPECT_NE(backend.lastError().find("WRONGTYPE"), std::string::npos) << backend.lastError();

    run(admin.get(), {"SET", backend.stateKey(rule, "garbage"), "not-a-bucket"});
    d = backend.acquire(rule, "garbage");
    EXPECT_FALSE(d.allowed);
    EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos) << backend.lastError();

    // The token bucket's state is two packed doubles: 16 bytes that are not a sound bucket
    // (NaN tokens, a negative count, a time beyond 2^52 µs) are corrupt, not a full bucket.
    for (const auto &[name, bytes] : {std::pair{"nan", std::string(16, '\xff')},
             std::pair{"negative",
                 std::string("\x00\x00\x00\x00\x00\x00\xf0\xbf", 8) + std::string(8, '\0')},
             std::pair{"future",
                 std::string(8, '\0') + std::string("\x00\x00\x00\x00\x00\x00\xf0\x7f", 8)}}) {
        run(admin.get(), {"SET", backend.stateKey(rule, name), bytes});
        d = backend.acquire(rule, name);
        EXPECT_FALSE(d.allowed) << name;
        EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos)
            << name << ": " << backend.lastError();
    }

    // The other string states are packed doubles too: a wrong length, NaN, a negative or
    // fractional count is corrupt for every one of them, never a fresh state.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const struct {
        const char *name;
        AlgorithmConfig config;
        std::vector<std::vector<double>> bad;
    } binary[] = {
        {"gcra", GcraConfig{Rate{10, kMicrosPerSecond}, 5}, {{nan}, {-1}, {1.5}, {1, 2}}},
        {"leaky", LeakyBucketConfig{Rate{10, kMicrosPerSecond}, 5, LeakMode::Shape},
            {{nan}, {5e15}}},
        {"fixed", windowed<FixedWindowConfig>(), {{0, nan}, {0, -3}, {0, 0.5}, {0}}},
        {"counter", windowed<SlidingWindowCounterConfig>(),
            {{0, 1, nan}, {0, -1, 0}, {0.25, 1, 1}, {0, 1}}},
    };
    for (const auto &b : binary) {
        const RedisRule r{uniquePrefix(b.name), b.config, StoreErrorPolicy::Allow};
        run(admin.get(), {"SET", backend.stateKey(r, "text"), "1700000000000000"});
        EXPECT_FALSE(backend.acquire(r, "text").allowed) << b.name;
        EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos)
            << b.name << ": " << backend.lastError();
        for (std::size_t i = 0; i < b.bad.size(); ++i) {
            const std::string key = "bad-" + std::to_string(i % 10);
            run(admin.get(), {"SET", backend.stateKey(r, key), packDoubles(b.bad[i])});
            EXPECT_FALSE(backend.acquire(r, key).allowed) << b.name << " case " << i;
            EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos)
                << b.name << " case " << i << ": " << backend.lastError();
        }
    }

    const RedisRule absurd{uniquePrefix("absurd"), TokenBucketConfig{-5, Rate{1, kMicrosPerSecond}},
        StoreErrorPolicy::Allow};
    d = backend.acquire(absurd, "k");
    EXPECT_FALSE(d.allowed);
    EXPECT_NE(backend.lastError().find("bad parameter"), std::string::npos) << backend.lastError();
    // And the connection is still good for the next sound request.
    EXPECT_TRUE(backend.acquire(rule, "fine").allowed) << backend.lastError();
}
