// The Redis module (limiter/redismodule/) in a real redis-server that loads it: parity with the
// embedded engine, interchangeability with the Lua scripts on the same keys, bad input,
// replication, a read-only ACL user, and the backend's choice of engine.
#include "limiter/engine/engine.h"
#include "limiter/redis/packeddoubles.h"
#include "limiter/redis/redisbackend.h"
#include "limiter/redis/redisstate.h"
#include "tests/integration/redis/parity.h"
#include "tests/support/rediscommand.h"
#include "tests/support/redisprocess.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <thread>

using namespace qs::limiter;
using qs::test::fixtureRedisPort;
using qs::test::RedisProcess;
using test::kParityStart;
using test::uniquePrefix;

namespace {

using Reply = qs::test::RedisReply;
using Context = qs::test::RedisContext;

Context connectTo(int port)
{
    return qs::test::connectRedis(port);
}

Reply command(redisContext *c, const std::vector<std::string> &args)
{
    return qs::test::redisRun(c, args);
}

std::string text(const Reply &r)
{
    return qs::test::replyText(r);
}

bool isError(const Reply &r)
{
    return r && r->type == REDIS_REPLY_ERROR;
}

// A key's whole value as comparable text: a string's bytes, a sorted set's members and scores.
std::string dump(redisContext *c, const std::string &key)
{
    const std::string type = text(command(c, {"TYPE", key}));
    if (type == "string")
        return "string:" + text(command(c, {"GET", key}));
    if (type == "zset") {
        std::string all = "zset:";
        const Reply r = command(c, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
        for (std::size_t i = 0; r && i < r->elements; ++i)
            all += std::string(r->element[i]->str, r->element[i]->len) + ",";
        return all;
    }
    return type;
}

RedisEndpoint moduleServer(RedisEngine engine = RedisEngine::Module, int port = fixtureRedisPort())
{
    RedisEndpoint e;
    e.port = port;
    e.engine = engine;
    // These tests judge decisions, not latency: on a loaded CI machine (or under ASan) a reply
    // slower than the default 250 ms must not turn into a store error.
    e.commandTimeout = 2 * kMicrosPerSecond;
    return e;
}

// Servers started by a test load the module as the fixture does (ASan's runtime preloaded when
// the module was built with it).
std::vector<std::string> withModule(std::vector<std::string> args = {})
{
    if (*QS_REDIS_PRELOAD)
        ::setenv("LD_PRELOAD", QS_REDIS_PRELOAD, 1);
    args.insert(args.begin(), {"--loadmodule", QS_REDIS_MODULE_PATH});
    return args;
}

class RedisModule : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_GT(fixtureRedisPort(), 0) << "run through ctest: the 'redis_module' fixture sets "
                                            "QS_TEST_REDIS_PORT";
        admin = connectTo(fixtureRedisPort());
        ASSERT_TRUE(admin);
    }
    Context admin;
};

} // namespace

TEST_F(RedisModule, RegistersBothCommandsWithTheirKeyAndFlags)
{
    const Reply list = command(admin.get(), {"MODULE", "LIST"});
    ASSERT_TRUE(list && list->type == REDIS_REPLY_ARRAY && list->elements >= 1);
    const Reply info = command(admin.get(), {"COMMAND", "INFO", "qs.decide", "qs.peek"});
    ASSERT_TRUE(info && info->elements == 2);
    for (std::size_t i = 0; i < 2; ++i) {
        const redisReply *c = info->element[i];
        ASSERT_EQ(c->type, REDIS_REPLY_ARRAY) << "command " << i << " is unknown";
        EXPECT_EQ(c->element[3]->integer, 1) << "first key";
        EXPECT_EQ(c->element[4]->integer, 1) << "last key";
        std::string flags;
        for (std::size_t f = 0; f < c->element[2]->elements; ++f)
            flags += std::string(c->element[2]->element[f]->str) + " ";
        EXPECT_NE(flags.find(i == 0 ? "write" : "readonly"), std::string::npos) << flags;
    }
    const Reply keys = command(admin.get(),
        {"COMMAND", "GETKEYS", "qs.decide", "user:42", "token_bucket", "1", "10", "1", "1000"});
    ASSERT_TRUE(keys && keys->elements == 1);
    EXPECT_EQ(std::string(keys->element[0]->str), "user:42");
}

TEST_F(RedisModule, DecidesExactlyAsTheEmbeddedEngineOnRandomTraces)
{
    RedisBackend backend(moduleServer());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    ASSERT_EQ(backend.engineInUse(), RedisEngine::Module);
    test::checkParityOnRandomTraces(test::through(backend, admin.get()), "module-random");
    test::checkParityOnCalendarTraces(test::through(backend, admin.get()), "module-calendar");
}

TEST_F(RedisModule, DecidesExactlyAsTheEmbeddedEngineAtTheEdges)
{
    RedisBackend backend(moduleServer());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    test::checkParityAtTheEdges(test::through(backend, admin.get()), "module-edges");
}

// Lua and the module taking turns on the same keys (a fleet mid-upgrade) decide request by
// request exactly as the engine, so exactly as either alone.
TEST_F(RedisModule, LuaAndModuleTakingTurnsOnTheSameKeysDecideAsEitherAlone)
{
    RedisBackend lua(moduleServer(RedisEngine::Lua)), module(moduleServer(RedisEngine::Module));
    ASSERT_TRUE(lua.connect()) << lua.lastError();
    ASSERT_TRUE(module.connect()) << module.lastError();
    ASSERT_EQ(lua.engineInUse(), RedisEngine::Lua);
    std::mt19937 turns(7);
    const test::RedisDecider takingTurns = [&](std::size_t, const RedisRule &rule,
                                               const std::string &key, std::int64_t cost,
                                               Micros at) {
        return test::decideAndKeep(turns() % 2 ? lua : module, admin.get(), rule, key, cost, at);
    };
    test::checkParityOnRandomTraces(takingTurns, "turns-random");
    test::checkParityAtTheEdges(takingTurns, "turns-edges");
}

// The same trace through Lua on one key and through the module on another: after every request
// both keys hold the same bytes (strings) or the same members and scores (the log), and the same
// TTL when it was set (each read right after its write, within 50 ms and the time that took).
TEST_F(RedisModule, LuaAndModuleWriteTheSameBytesAndTtls)
{
    RedisBackend lua(moduleServer(RedisEngine::Lua)), module(moduleServer(RedisEngine::Module));
    ASSERT_TRUE(lua.connect()) << lua.lastError();
    ASSERT_TRUE(module.connect()) << module.lastError();
    for (const test::NamedConfig &n : test::parityConfigs()) {
        const RedisRule viaLua{uniquePrefix("bytes-lua"), n.config};
        const RedisRule viaModule{uniquePrefix("bytes-module"), n.config};
        const auto trace = test::edgeTrace(5, 200, kParityStart, kMicrosPerSecond, 8);
        int compared = 0, stalled = 0;
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const std::string key = i % 7 == 0 ? "other" : "k";
            const std::string l = lua.stateKey(viaLua, key), m = module.stateKey(viaModule, key);
            // Each key's TTL is read right after its own write, and the key made persistent in
            // the same call, so that real time (the trace runs on its own clock) expires nothing
            // between steps. A machine that stalls longer than a TTL (1 s at least here; seen on
            // CI) between a write and that read leaves a step that cannot be judged: both keys
            // are dropped and the trace goes on from fresh states, counted below.
            const auto written = [&](RedisBackend &backend, const RedisRule &rule,
                                     const std::string &stateKey, Decision &d) {
                const auto start = std::chrono::steady_clock::now();
                d = backend.acquire(rule, key, trace[i].cost, trace[i].at);
                const Reply ttl = command(admin.get(),
                    {"EVAL",
                        "local t = redis.call('PTTL', KEYS[1]) redis.call('PERSIST', KEYS[1]) "
                        "return t",
                        "1", stateKey});
                const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - start);
                return std::pair{double(ttl->integer), double(took.count())};
            };
            Decision a, b;
            const auto [ttlLua, tookLua] = written(lua, viaLua, l, a);
            const auto [ttlModule, tookModule] = written(module, viaModule, m, b);
            ASSERT_NE(b.reason, Reason::StoreError) << module.lastError();
            ASSERT_EQ(a.allowed, b.allowed) << n.name << " #" << i;
            ASSERT_EQ(a.remaining, b.remaining) << n.name << " #" << i;
            if ((ttlLua == -2) != (ttlModule == -2) && std::max(tookLua, tookModule) >= 900) {
                command(admin.get(), {"DEL", l, m});
                ++stalled;
                continue;
            }
            ASSERT_EQ(dump(admin.get(), l), dump(admin.get(), m)) << n.name << " #" << i;
            EXPECT_NEAR(ttlLua, ttlModule, 50.0 + tookLua + tookModule) << n.name << " #" << i;
            ++compared;
        }
        EXPECT_GT(compared, 100) << n.name << " (" << stalled << " steps lost to stalls)";
    }
}

TEST_F(RedisModule, BadInputIsAnErrorNeverAnAdmissionNeverACrash)
{
    // A server of its own: among the random lists are sliding-window logs of a million entries,
    // one call of which holds a server for seconds, and the fixture's serves the tests that run
    // alongside (their calls time out after 2 s).
    RedisProcess server(withModule());
    ASSERT_TRUE(server.start());
    const Context own = connectTo(server.port());
    ASSERT_TRUE(own);
    redisContext *const redis = own.get();
    const std::string p = uniquePrefix("bad");
    const struct {
        std::vector<std::string> args;
        const char *expected;
    } cases[] = {
        {{"QS.DECIDE"}, "wrong number of arguments"},
        {{"QS.DECIDE", p + "k"}, "wrong number of arguments"},
        {{"QS.DECIDE", p + "k", "token_bucket", "1", "10", "1"}, "wrong number of arguments"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "5", "1000"}, "wrong number of arguments"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "5", "NOW"}, "wrong number of arguments"},
        {{"QS.DECIDE", p + "k", "nope", "1", "1", "1"}, "unknown algorithm 'nope'"},
        {{"QS.DECIDE", p + "k", "gcra", "-1", "1000", "5"}, "the cost must be"},
        {{"QS.DECIDE", p + "k", "gcra", "1.5", "1000", "5"}, "the cost must be"},
        {{"QS.DECIDE", p + "k", "gcra", "9999999999999999999", "1000", "5"}, "the cost must be"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "0", "5"}, "rate"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "0"}, "burst must be at least 1"},
        {{"QS.DECIDE", p + "k", "token_bucket", "1", "5000000000000", "1", "1000"}, "absurd"},
        {{"QS.DECIDE", p + "k", "token_bucket", "1", "10", "1", "4000000000000001"}, "parameter 3"},
        {{"QS.DECIDE", p + "k", "leaky_bucket", "1", "1000", "3", "2"}, "shape"},
        {{"QS.DECIDE", p + "k", "fixed_window", "1", "10", "999"}, "window must be at least 1ms"},
        {{"QS.DECIDE", p + "k", "sliding_window_log", "1", "2000000", "1000000"}, "too large"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "5", "NOW", "soon"}, "only NOW"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "5", "LATER", "5"}, "only NOW"},
        {{"QS.DECIDE", p + "k", "gcra", "1", "1000", "5", "NOW", "-5"}, "only NOW"},
        {{"QS.PEEK", p + "k", "gcra", "1", "1000", "5"}, "wrong number of arguments"},
        {{"QS.PEEK", p + "k", "gcra"}, "wrong number of arguments"},
    };
    for (const auto &c : cases) {
        const Reply r = command(redis, c.args);
        ASSERT_TRUE(r) << "no reply: the server died";
        ASSERT_EQ(r->type, REDIS_REPLY_ERROR) << c.args.size() << " args";
        EXPECT_NE(text(r).find(c.expected), std::string::npos) << text(r);
        EXPECT_EQ(command(redis, {"EXISTS", p + "k"})->integer, 0) << text(r);
    }

    // Keys of another type, and states no script writes: an error, the key left as it was.
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const struct {
        std::vector<std::string> setup;
        std::vector<std::string> decide;
        const char *expected;
    } data[] = {
        {{"LPUSH", p + "list", "x"}, {"token_bucket", "1", "10", "1", "1000000"}, "WRONGTYPE"},
        {{"HSET", p + "hash", "f", "v"}, {"gcra", "1", "1000", "5"}, "WRONGTYPE"},
        {{"SET", p + "str", "x"}, {"sliding_window_log", "1", "5", "1000000"}, "WRONGTYPE"},
        {{"ZADD", p + "zset", "1", "m"}, {"fixed_window", "1", "5", "1000000"}, "WRONGTYPE"},
        {{"SET", p + "text", "not-a-bucket"}, {"token_bucket", "1", "10", "1", "1000000"},
            "corrupt state"},
        {{"SET", p + "nan", packDoubles(std::vector<double>{nan, 1})},
            {"token_bucket", "1", "10", "1", "1000000"}, "corrupt state"},
        {{"SET", p + "frac", packDoubles(std::vector<double>{0, 0.5})},
            {"fixed_window", "1", "5", "1000000"}, "corrupt state"},
        {{"SET", p + "swc", packDoubles(std::vector<double>{0, -1, 0})},
            {"sliding_window_counter", "1", "5", "1000000"}, "corrupt state"},
        {{"SET", p + "tat", packDoubles(std::vector<double>{1.5})}, {"gcra", "1", "1000", "5"},
            "corrupt state"},
        {{"ZADD", p + "log", "-5", "m"}, {"sliding_window_log", "1", "5", "1000000"},
            "corrupt state"},
    };
    for (const auto &d : data) {
        const std::string key = d.setup[1];
        command(redis, d.setup);
        const std::string before = dump(redis, key);
        std::vector<std::string> args{"QS.DECIDE", key};
        args.insert(args.end(), d.decide.begin(), d.decide.end());
        const Reply r = command(redis, args);
        ASSERT_TRUE(r) << "no reply: the server died";
        ASSERT_EQ(r->type, REDIS_REPLY_ERROR) << key;
        EXPECT_NE(text(r).find(d.expected), std::string::npos) << key << ": " << text(r);
        EXPECT_EQ(dump(redis, key), before) << key;
        args[0] = "QS.PEEK";
        args.erase(args.begin() + 3); // no cost
        EXPECT_TRUE(isError(command(redis, args))) << "QS.PEEK on " << key;
    }

    // Through the backend, with onStoreError allow: a broken key still denies.
    RedisBackend backend(moduleServer(RedisEngine::Module, server.port()));
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{
        p + "rule", TokenBucketConfig{10, Rate{1, kMicrosPerSecond}}, StoreErrorPolicy::Allow};
    command(redis, {"SET", backend.stateKey(rule, "k"), "garbage"});
    const Decision denied = backend.acquire(rule, "k");
    EXPECT_FALSE(denied.allowed);
    EXPECT_NE(backend.lastError().find("corrupt state"), std::string::npos) << backend.lastError();

    // Random argument lists: each reply an error or a sound 32-byte decision, and the server
    // alive at the end.
    std::mt19937 rng(11);
    const std::vector<std::string> algorithms{"token_bucket", "gcra", "leaky_bucket",
        "fixed_window", "sliding_window_log", "sliding_window_counter"};
    const std::vector<std::string> sound{"1", "2", "3", "1000", "1000000"};
    const std::vector<std::string> wild{"NOW", "now", "0", "-1", "4000000000000000",
        "4000000000000001", "9223372036854775807", "1e3", "", " 1", "0x10", "\xff\xfe",
        std::string("\0", 1), "gcra"};
    const auto pick
        = [&](const std::vector<std::string> &from) { return from[rng() % from.size()]; };
    int decided = 0;
    for (int i = 0; i < 3000; ++i) {
        std::vector<std::string> args{i % 5 == 0 ? "QS.PEEK" : "QS.DECIDE", p + "fuzz"};
        args.push_back(rng() % 5 ? pick(algorithms) : pick(wild));
        const int n = 1 + int(rng() % 6);
        for (int k = 0; k < n; ++k)
            args.push_back(rng() % 10 < 7 ? pick(sound) : pick(wild));
        const Reply r = command(redis, args);
        ASSERT_TRUE(r) << "no reply: the server died";
        if (r->type == REDIS_REPLY_STRING) {
            ASSERT_EQ(r->len, 32u);
            double fields[4] = {-1, -1, -1, -1};
            ASSERT_TRUE(unpackDoubles(text(r), fields));
            EXPECT_TRUE(fields[0] == 0 || fields[0] == 1 || fields[0] == 2);
            ++decided;
        } else {
            ASSERT_TRUE(r->type == REDIS_REPLY_ERROR || r->type == REDIS_REPLY_ARRAY) << r->type;
        }
        command(redis, {"DEL", p + "fuzz"});
    }
    EXPECT_GT(decided, 10) << "the random lists must also hit sound commands";
    EXPECT_EQ(text(command(redis, {"PING"})), "PONG");
}

// A replica started by the test: the module's decisions reach it as their effects (PSETEX,
// ZADD …), never as QS.DECIDE, and leave byte-identical states with the same expiry.
TEST_F(RedisModule, AReplicaHoldsByteIdenticalStates)
{
    // No diskless-sync delay: by default the master waits 5 s for more replicas before the first
    // sync, and traces written before it would reach the replica inside its RDB, not as the
    // stream of effects this test is about.
    RedisProcess master(withModule({"--repl-diskless-sync-delay", "0"}));
    ASSERT_TRUE(master.start());
    RedisProcess replica(withModule(
        {"--replicaof", "127.0.0.1", std::to_string(master.port()), "--replica-read-only", "yes"}));
    ASSERT_TRUE(replica.start());
    Context m = connectTo(master.port()), r = connectTo(replica.port());
    bool linked = false;
    for (int i = 0; i < 200 && !linked; ++i) {
        linked = text(command(r.get(), {"INFO", "replication"})).find("master_link_status:up")
            != std::string::npos;
        if (!linked)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(linked) << "the replica did not sync with its master in 10 s";
    RedisEndpoint e;
    e.port = master.port();
    e.engine = RedisEngine::Module;
    RedisBackend backend(e);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    std::vector<std::string> keys;
    std::vector<RedisRule> rules;
    for (const test::NamedConfig &n : test::parityConfigs())
        rules.push_back({std::string("repl:") + n.name, n.config});
    for (const RedisRule &rule : rules) {
        const auto trace = test::edgeTrace(3, 150, kParityStart, kMicrosPerSecond, 8);
        for (std::size_t i = 0; i < trace.size(); ++i) {
            const std::string key = "c" + std::to_string(i % 3);
            const Decision d = backend.acquire(rule, key, trace[i].cost,
                i % 2 ? std::optional<Micros>(trace[i].at) : std::nullopt);
            ASSERT_NE(d.reason, Reason::StoreError) << backend.lastError();
        }
        for (int c = 0; c < 3; ++c)
            keys.push_back(backend.stateKey(rule, "c" + std::to_string(c)));
    }
    // WAIT waits for the calling client's own last write: the backend wrote on another
    // connection, so this one writes a marker behind those writes and waits for that.
    command(m.get(), {"SET", "repl:written", "1"});
    const Reply waited = command(m.get(), {"WAIT", "1", "5000"});
    ASSERT_EQ(waited->integer, 1) << "the replica did not acknowledge";
    int present = 0;
    for (const std::string &key : keys) {
        const std::string onMaster = dump(m.get(), key);
        EXPECT_EQ(dump(r.get(), key), onMaster) << key;
        present += onMaster != "none";
        if (onMaster != "none") { // the same absolute expiry: Redis replicates it as PXAT
            const std::vector<std::string> when{"PEXPIRETIME", key};
            const long long masterExpiry = command(m.get(), when)->integer;
            EXPECT_GT(masterExpiry, 0) << key << " has no expiry";
            EXPECT_EQ(command(r.get(), when)->integer, masterExpiry) << key;
        }
    }
    EXPECT_GT(present, 12) << "the traces must leave states to compare";
    EXPECT_EQ(text(command(r.get(), {"INFO", "commandstats"})).find("cmdstat_qs.decide"),
        std::string::npos)
        << "the command itself must not be replicated";
    // QS.PEEK is read-only: it runs on the replica and answers as on the master.
    const std::vector<std::string> peek{"QS.PEEK", keys[0], "token_bucket", "8", "3", "1000000",
        "NOW", std::to_string(kParityStart)};
    const Reply onReplica = command(r.get(), peek), onMaster = command(m.get(), peek);
    ASSERT_EQ(onReplica->type, REDIS_REPLY_ARRAY) << text(onReplica);
    for (std::size_t i = 0; i < 4; ++i)
        EXPECT_EQ(onReplica->element[i]->integer, onMaster->element[i]->integer) << i;
    EXPECT_TRUE(
        isError(command(r.get(), {"QS.DECIDE", keys[0], "token_bucket", "1", "8", "3", "1000000"})))
        << "a replica refuses the write command";
}

// QS.PEEK answers what the engine's peek() says of the same state, and a user whose ACL allows
// reading only may run it (but not QS.DECIDE, nor any write).
TEST_F(RedisModule, PeekAnswersAsTheEngineForAReadOnlyUser)
{
    const std::string p = uniquePrefix("peek");
    const std::string user = "peek-" + std::to_string(::getpid());
    // Redis 7.0 gives module commands no ACL category (7.2 adds them): +qs.peek names it.
    ASSERT_EQ(text(command(admin.get(),
                  {"ACL", "SETUSER", user, "reset", "on", ">secret", "~*", "+@read", "+qs.peek"})),
        "OK");
    Context reader = connectTo(fixtureRedisPort());
    ASSERT_EQ(text(command(reader.get(), {"AUTH", user, "secret"})), "OK");

    RedisBackend backend(moduleServer());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const GcraConfig gcra{Rate{10, kMicrosPerSecond}, 3};
    const RedisRule rule{p, gcra};
    AlgorithmState local = freshState(gcra);
    Micros now = kParityStart;
    int throttled = 0;
    for (int i = 0; i < 6; ++i, now += 20'000) {
        backend.acquire(rule, "k", 1, now);
        decide(gcra, local, now, 1);
        const Quota expected = peek(gcra, local, now);
        const Reply r = command(reader.get(),
            {"QS.PEEK", backend.stateKey(rule, "k"), "gcra", "100000", "3", "NOW",
                std::to_string(now)});
        ASSERT_EQ(r->type, REDIS_REPLY_ARRAY) << text(r);
        EXPECT_EQ(r->element[0]->integer, expected.remaining) << i;
        EXPECT_EQ(r->element[1]->integer, expected.limit) << i;
        EXPECT_EQ(r->element[2]->integer, expected.resetAfter) << i;
        EXPECT_EQ(r->element[3]->integer, expected.remaining < 1 ? 1 : 0) << i;
        throttled += int(r->element[3]->integer);
    }
    EXPECT_GT(throttled, 0) << "a burst of 3 at 10/s, requests 20 ms apart: some peek throttled";
    const std::string before = dump(admin.get(), backend.stateKey(rule, "k"));
    EXPECT_NE(text(command(reader.get(),
                       {"QS.DECIDE", backend.stateKey(rule, "k"), "gcra", "1", "100000", "3"}))
                  .find("NOPERM"),
        std::string::npos);
    EXPECT_NE(text(command(reader.get(), {"SET", backend.stateKey(rule, "k"), "x"})).find("NOPERM"),
        std::string::npos);
    EXPECT_EQ(dump(admin.get(), backend.stateKey(rule, "k")), before);
    command(admin.get(), {"ACL", "DELUSER", user});
}

TEST_F(RedisModule, TheBackendChoosesTheEngineAtConnect)
{
    RedisBackend automatic(moduleServer(RedisEngine::Auto));
    ASSERT_TRUE(automatic.connect()) << automatic.lastError();
    EXPECT_EQ(automatic.engineInUse(), RedisEngine::Module);

    // A user refused MODULE LIST still finds the module (COMMAND INFO).
    const std::string user = "nomodule-" + std::to_string(::getpid());
    command(admin.get(), {"ACL", "SETUSER", user, "reset", "on", ">pw", "~*", "+@all", "-module"});
    RedisEndpoint limited = moduleServer(RedisEngine::Auto);
    limited.user = user;
    limited.password = "pw";
    RedisBackend withoutModuleList(limited);
    ASSERT_TRUE(withoutModuleList.connect()) << withoutModuleList.lastError();
    EXPECT_EQ(withoutModuleList.engineInUse(), RedisEngine::Module);
    command(admin.get(), {"ACL", "DELUSER", user});

    // A server without the module: Auto falls back to Lua, Module refuses to connect.
    RedisProcess plain;
    ASSERT_TRUE(plain.start());
    RedisEndpoint e;
    e.port = plain.port();
    RedisBackend fallback(e);
    ASSERT_TRUE(fallback.connect()) << fallback.lastError();
    EXPECT_EQ(fallback.engineInUse(), RedisEngine::Lua);
    EXPECT_TRUE(
        fallback.acquire(RedisRule{"plain", GcraConfig{Rate{1, kMicrosPerSecond}, 1}}, "k").allowed)
        << fallback.lastError();
    e.engine = RedisEngine::Module;
    RedisBackend forced(e);
    EXPECT_FALSE(forced.connect());
    EXPECT_NE(forced.lastError().find("no Quota Studio module"), std::string::npos)
        << forced.lastError();
}

// QS.DECIDEALL, several limits of one request in one module command: on random traces (two to
// four limits of all six algorithms, shadow limits, costs 1-2) the same per-limit decisions,
// answer and deciding limit as several.lua, the C++ rule and the embedded engine; the bytes it
// leaves in Redis are several.lua's, key for key; and its keys are found as EVALSHA's are.
TEST_F(RedisModule, SeveralLimitsInOneCommandDecideAsLuaTheRuleAndTheEngine)
{
    RedisBackend viaModule(moduleServer());
    RedisBackend viaLua(moduleServer(RedisEngine::Lua));
    ASSERT_TRUE(viaModule.connect()) << viaModule.lastError();
    ASSERT_TRUE(viaLua.connect()) << viaLua.lastError();
    ASSERT_EQ(viaModule.engineInUse(), RedisEngine::Module);
    const Reply keys = command(admin.get(),
        {"COMMAND", "GETKEYS", "qs.decideall", "2", "a", "b", "", "gcra", "1", "0", "1000", "1", "",
            "gcra", "1", "0", "1000", "1", ""});
    ASSERT_TRUE(keys && keys->type == REDIS_REPLY_ARRAY && keys->elements == 2) << text(keys);
    EXPECT_EQ(std::string(keys->element[1]->str), "b");

    std::mt19937_64 rng(23);
    const std::string run = uniquePrefix("several-module");
    int admitted = 0, denied = 0, compared = 0;
    for (int trace = 0; trace < 80; ++trace) {
        const std::size_t n = 2 + rng() % 3;
        std::vector<RedisRule> moduleRules(n), luaRules(n);
        std::vector<AlgorithmConfig> configs(n);
        std::vector<bool> shadow(n);
        std::vector<std::int64_t> costs(n);
        Engine engine;
        std::vector<RuleId> engineRules(n);
        for (std::size_t l = 0; l < n; ++l) {
            configs[l] = test::randomSmallConfig(rng);
            const std::string name = run + ":" + std::to_string(trace) + ":" + std::to_string(l);
            moduleRules[l] = {name + ":m", configs[l]};
            luaRules[l] = {name + ":l", configs[l]};
            engineRules[l] = *engine.addRule(configs[l]).id;
            shadow[l] = rng() % 4 == 0;
            costs[l] = 1 + std::int64_t(rng() % 2);
        }
        std::map<std::pair<std::size_t, int>, AlgorithmState> states;
        Micros now = kParityStart;
        for (int step = 0; step < 40; ++step) {
            now += Micros(rng() % 700'000);
            const int client = int(rng() % 2);
            const std::string key = test::numbered("c", client);
            std::vector<RedisLimitRequest> m, l;
            std::vector<LimitRef> refs;
            std::vector<EngineLimit> e;
            for (std::size_t i = 0; i < n; ++i) {
                m.push_back({&moduleRules[i], key, costs[i], shadow[i]});
                l.push_back({&luaRules[i], key, costs[i], shadow[i]});
                e.push_back({engineRules[i], key, costs[i], shadow[i]});
                auto [it, fresh] = states.try_emplace({i, client}, freshState(configs[i]));
                refs.push_back({&configs[i], &it->second, costs[i], shadow[i]});
            }
            std::vector<Decision> dm(n), dl(n), dc(n), de(n);
            const SetDecision sm = viaModule.acquireAll(m, dm, now);
            const SetDecision sl = viaLua.acquireAll(l, dl, now);
            const SetDecision sc = decideAll(refs, now, dc);
            const SetDecision se = engine.acquireAll(e, now, de);
            const std::string where = "trace " + std::to_string(trace) + " step "
                + std::to_string(step) + ": " + viaModule.lastError();
            ASSERT_EQ(sm.allowed, sc.allowed) << where;
            ASSERT_EQ(sl.allowed, sc.allowed) << where;
            ASSERT_EQ(se.allowed, sc.allowed) << where;
            ASSERT_EQ(sm.deciding, sc.deciding) << where;
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_NE(dm[i].reason, Reason::StoreError) << where;
                ASSERT_EQ(dm[i].allowed, dc[i].allowed) << where << " limit " << i;
                ASSERT_EQ(dm[i].remaining, dc[i].remaining) << where << " limit " << i;
                ASSERT_EQ(dm[i].allowed ? dm[i].delay : dm[i].retryAfter,
                    dc[i].allowed ? dc[i].delay : dc[i].retryAfter)
                    << where << " limit " << i;
                ASSERT_EQ(dm[i].resetAfter, dl[i].resetAfter) << where << " limit " << i;
            }
            ++compared;
            (sc.allowed ? admitted : denied)++;
        }
        // What the module left in Redis is what several.lua left, limit by limit and client.
        for (std::size_t i = 0; i < n; ++i)
            for (int client = 0; client < 2; ++client) {
                const std::string key = test::numbered("c", client);
                EXPECT_EQ(dump(admin.get(), viaModule.stateKey(moduleRules[i], key)),
                    dump(admin.get(), viaLua.stateKey(luaRules[i], key)))
                    << "trace " << trace << " limit " << i;
            }
    }
    EXPECT_GT(admitted, 300);
    EXPECT_GT(denied, 300);
    EXPECT_EQ(compared, admitted + denied);
    const std::string stats = text(command(admin.get(), {"INFO", "commandstats"}));
    EXPECT_NE(stats.find("cmdstat_qs.decideall:calls="), std::string::npos)
        << "the module backend sent QS.DECIDEALL";
}
