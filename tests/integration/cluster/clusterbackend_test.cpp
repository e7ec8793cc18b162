// RedisBackend on a real three-master Redis Cluster (tests/integration/cluster-fixture):
// detection, exact parity with the embedded engine for all six algorithms across the masters,
// ASK and MOVED during a slot migration under load (no decision lost or doubled, the bound
// kept), a killed master failed over, and per-route metrics in their own slot.
#include "clusterfixture.h"
#include "clustertest.h"

#include "limiter/engine/engine.h"
#include "limiter/redis/keyslot.h"
#include "limiter/redis/redisbackend.h"
#include "tests/integration/redis/parity.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace qs::limiter;
using qs::test::Cluster;
using qs::test::ClusterNode;
using qs::test::command;
using qs::test::connectTo;

namespace {

constexpr Micros kStart = test::kParityStart;

class ClusterBackend : public qs::test::ClusterTest {
protected:
    void decidesAsTheEmbeddedEngine(RedisEngine engineChoice);
};

// Client keys whose state keys fall in [first, last] slots.
std::vector<std::string> keysInSlots(const RedisRule &rule, int first, int last, int count)
{
    std::vector<std::string> keys;
    for (long i = 0; int(keys.size()) < count; ++i) {
        std::string k = test::numbered("client-", i);
        const int slot = keySlot(rule.keyPrefix + ":" + k);
        if (slot >= first && slot <= last)
            keys.push_back(std::move(k));
    }
    return keys;
}

} // namespace

TEST_F(ClusterBackend, DetectsTheClusterAndSpreadsKeysOverEveryMaster)
{
    // One seed is enough: the others are learnt from the slot map.
    RedisEndpoint one;
    one.setSeeds({cluster.seeds().back()});
    RedisBackend backend(one);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    EXPECT_TRUE(backend.isCluster());
    EXPECT_EQ(backend.masters().size(), 3u);
    const RedisRule rule{test::uniquePrefix("spread"), GcraConfig{Rate{10, kMicrosPerSecond}, 5}};
    std::set<std::string> servedBy;
    for (int i = 0; i < 60; ++i) {
        const std::string key = test::numbered("k", i);
        ASSERT_TRUE(backend.acquire(rule, key).allowed) << backend.lastError();
        const ClusterNode *owner = cluster.masterOf(keySlot(backend.stateKey(rule, key)));
        ASSERT_TRUE(owner);
        qs::test::Context c = connectTo(owner->address.port);
        long long exists = 0;
        command(c.get(), {"EXISTS", backend.stateKey(rule, key)}, &exists);
        EXPECT_EQ(exists, 1) << key << " is not on the master of its slot";
        servedBy.insert(owner->address.text());
    }
    EXPECT_EQ(servedBy.size(), 3u);

    // A seed list whose first node is down: the next one is used.
    RedisEndpoint withDeadSeed;
    withDeadSeed.setSeeds({RedisAddress{"127.0.0.1", 1}, cluster.seeds().front()});
    RedisBackend second(withDeadSeed);
    EXPECT_TRUE(second.connect()) << second.lastError();
    // A cluster has only db 0: asking for another is a clear error, not a silent db 0.
    RedisEndpoint db3 = cluster.endpoint();
    db3.db = 3;
    RedisBackend third(db3);
    EXPECT_FALSE(third.connect());
    EXPECT_NE(third.lastError().find("only db 0"), std::string::npos) << third.lastError();
}

// Both engines: the fixture's nodes load the Redis module, so Lua is forced for one pass.
TEST_F(ClusterBackend, DecidesExactlyAsTheEmbeddedEngineForAllSixAlgorithms)
{
    for (const RedisEngine engineChoice : {RedisEngine::Lua, RedisEngine::Module})
        decidesAsTheEmbeddedEngine(engineChoice);
}

void ClusterBackend::decidesAsTheEmbeddedEngine(RedisEngine engineChoice)
{
    SCOPED_TRACE(engineChoice == RedisEngine::Lua ? "Lua" : "module");
    RedisEndpoint endpoint = cluster.endpoint();
    endpoint.engine = engineChoice;
    RedisBackend backend(endpoint);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    ASSERT_EQ(backend.engineInUse(), engineChoice);
    std::set<Algorithm> algorithms;
    for (const test::NamedConfig &n : test::parityConfigs()) {
        algorithms.insert(algorithmOf(n.config));
        const RedisRule rule{test::uniquePrefix(n.name), n.config};
        Engine engine;
        const RuleId id = *engine.addRule(n.config).id;
        // Eight clients, spread over the three masters; batches of up to eight decisions, each
        // split by node and put back in request order.
        const auto trace = test::randomTrace(7, 400, kStart, 120'000);
        std::size_t i = 0;
        int allowed = 0;
        while (i < trace.size()) {
            const std::size_t n8 = std::min<std::size_t>(1 + i % 8, trace.size() - i);
            std::vector<std::string> keys;
            for (std::size_t j = 0; j < n8; ++j)
                keys.push_back(test::numbered("client-", long((i + j) % 8)));
            std::vector<RedisRequest> batch;
            for (std::size_t j = 0; j < n8; ++j)
                batch.push_back({&rule, keys[j], trace[i + j].cost, trace[i + j].at});
            const std::vector<Decision> remote = backend.acquireBatch(batch);
            ASSERT_EQ(remote.size(), n8);
            for (std::size_t j = 0; j < n8; ++j) {
                const Decision local
                    = engine.acquire(id, keys[j], trace[i + j].at, trace[i + j].cost);
                ASSERT_NE(remote[j].reason, Reason::StoreError) << backend.lastError();
                test::expectSameDecision(
                    remote[j], local, std::string(n.name) + " #" + std::to_string(i + j));
                allowed += local.allowed;
            }
            i += n8;
        }
        EXPECT_GT(allowed, 20) << n.name;
        EXPECT_LT(allowed, 400) << n.name;
    }
    EXPECT_EQ(algorithms.size(), 6u);
    EXPECT_EQ(backend.redirections(), 0u) << "a stable cluster redirects nothing";
}

// A slot being migrated, set up by hand: a key the source no longer has is decided at the
// target after ASKING, one it still has stays at the source; the map is not changed by ASK.
TEST_F(ClusterBackend, FollowsAskWhileASlotIsMigrating)
{
    RedisBackend backend(cluster.endpoint());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{
        test::uniquePrefix("ask"), TokenBucketConfig{3, Rate{1, kMicrosPerSecond}}};
    const std::vector<ClusterNode> nodes = cluster.nodes();
    const std::string staying = "stay";
    const int slot = keySlot(backend.stateKey(rule, staying));
    const ClusterNode *source = cluster.masterOf(slot);
    ASSERT_TRUE(source);
    const ClusterNode *target = nullptr;
    for (const ClusterNode &n : nodes)
        if (n.master && !n.failed && n.id != source->id)
            target = &n;
    ASSERT_TRUE(target);
    const ClusterNode from = *source, to = *target;
    ASSERT_TRUE(backend.acquire(rule, staying, 1, kStart).allowed); // exists at the source
    // A second client key in the very same slot, not yet in Redis.
    std::string moving;
    for (long i = 0; moving.empty(); ++i) {
        const std::string k = test::numbered("m", i);
        if (keySlot(backend.stateKey(rule, k)) == slot)
            moving = k;
    }
    qs::test::Context src = connectTo(from.address.port), dst = connectTo(to.address.port);
    const std::string s = std::to_string(slot);
    ASSERT_EQ(command(dst.get(), {"CLUSTER", "SETSLOT", s, "IMPORTING", from.id}), "OK");
    ASSERT_EQ(command(src.get(), {"CLUSTER", "SETSLOT", s, "MIGRATING", to.id}), "OK");
    const Decision atTarget = backend.acquire(rule, moving, 1, kStart);
    const Decision atSource = backend.acquire(rule, staying, 1, kStart);
    // Whatever happens below, the slot goes back to normal.
    long long onTarget = 0, onSource = 0;
    command(dst.get(), {"ASKING"});
    command(dst.get(), {"EXISTS", backend.stateKey(rule, moving)}, &onTarget);
    command(src.get(), {"EXISTS", backend.stateKey(rule, staying)}, &onSource);
    command(dst.get(), {"ASKING"});
    command(dst.get(), {"DEL", backend.stateKey(rule, moving)});
    command(dst.get(), {"CLUSTER", "SETSLOT", s, "STABLE"});
    command(src.get(), {"CLUSTER", "SETSLOT", s, "STABLE"});
    EXPECT_TRUE(atTarget.allowed) << backend.lastError();
    EXPECT_EQ(atTarget.remaining, 2);
    EXPECT_EQ(onTarget, 1) << "the new key was not created at the importing node";
    EXPECT_TRUE(atSource.allowed) << backend.lastError();
    EXPECT_EQ(atSource.remaining, 1) << "the existing key was not decided where it lives";
    EXPECT_EQ(onSource, 1);
    EXPECT_EQ(backend.redirections(), 1u);
    // After ASK the map still says source: the next new key asks again rather than moving.
    EXPECT_EQ(cluster.masterOf(slot)->id, from.id);
}

// redis-cli --cluster reshard moves 300 slots that hold live keys while a thread decides on
// them with its own clock, through Lua and the module in turn: every decision equals the embedded
// engine's (a lost or doubled decision would change every later one) and the token bucket's bound
// holds over any span.
TEST_F(ClusterBackend, ASlotMigrationUnderLoadLosesNoDecisionAndDoublesNone)
{
    const TokenBucketConfig config{20, Rate{200, kMicrosPerSecond}};
    const RedisRule rule{test::uniquePrefix("migrate"), config};
    // The source's first 300 slots: the ones reshard moves first.
    const ClusterNode *sourceNode = nullptr;
    const std::vector<ClusterNode> nodes = cluster.nodes();
    for (const ClusterNode &n : nodes)
        if (n.master && !n.failed && !n.slots.empty() && !sourceNode)
            sourceNode = &n;
    ASSERT_TRUE(sourceNode);
    const ClusterNode source = *sourceNode;
    const ClusterNode *targetNode = nullptr;
    for (const ClusterNode &n : nodes)
        if (n.master && !n.failed && n.id != source.id)
            targetNode = &n;
    ASSERT_TRUE(targetNode);
    const ClusterNode target = *targetNode;
    const int first = source.slots.front().first;
    const std::vector<std::string> keys = keysInSlots(rule, first, first + 299, 24);

    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> decided{0};
    std::string failure;
    std::uint64_t redirections = 0;
    std::vector<std::vector<test::Arrival>> admitted(keys.size());
    std::thread load([&] {
        // Batches alternate between the Lua scripts and the module on the same keys: both
        // engines follow the migration, and either continues what the other left.
        RedisEndpoint viaLua = cluster.endpoint(), viaModule = cluster.endpoint();
        viaLua.engine = RedisEngine::Lua;
        viaModule.engine = RedisEngine::Module;
        RedisBackend lua(viaLua), module(viaModule);
        for (RedisBackend *b : {&lua, &module})
            if (!b->connect()) {
                failure = b->lastError();
                return;
            }
        std::uint64_t batches = 0;
        Engine engine;
        const RuleId id = *engine.addRule(config).id;
        Micros now = kStart;
        std::mt19937_64 rng(5);
        std::uniform_int_distribution<std::size_t> pick(0, keys.size() - 1);
        std::vector<RedisRequest> batch(8);
        std::vector<std::size_t> which(8);
        while (!stop.load() && failure.empty()) {
            for (std::size_t j = 0; j < batch.size(); ++j) {
                now += 700; // ~1400 decisions per simulated second over 24 keys: both outcomes
                which[j] = pick(rng);
                batch[j] = {&rule, keys[which[j]], 1, now};
            }
            RedisBackend &backend = ++batches % 2 ? lua : module;
            const std::vector<Decision> remote = backend.acquireBatch(batch);
            for (std::size_t j = 0; j < batch.size() && failure.empty(); ++j) {
                const Decision local = engine.acquire(id, keys[which[j]], *batch[j].now, 1);
                if (remote[j].reason == Reason::StoreError || remote[j].allowed != local.allowed
                    || remote[j].remaining != local.remaining)
                    failure = "decision " + std::to_string(decided.load() + j) + " for "
                        + keys[which[j]] + ": Redis said allowed="
                        + std::to_string(remote[j].allowed) + " remaining="
                        + std::to_string(remote[j].remaining) + " (" + backend.lastError()
                        + "), the engine allowed=" + std::to_string(local.allowed)
                        + " remaining=" + std::to_string(local.remaining);
                if (remote[j].allowed)
                    admitted[which[j]].push_back({*batch[j].now, 1});
            }
            decided += batch.size();
        }
        redirections = lua.redirections() + module.redirections();
    });
    while (decided.load() < 2000 && failure.empty())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const std::string reshard = cluster.reshard(source, target, 300);
    const std::uint64_t duringMigration = decided.load();
    while (decided.load() < duringMigration + 2000 && failure.empty())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stop = true;
    load.join();
    ASSERT_EQ(reshard, "");
    ASSERT_TRUE(failure.empty()) << failure;
    EXPECT_GT(redirections, 0u) << "the load never met the migration: nothing was tested";
    for (const std::string &k : keys) {
        const ClusterNode *owner = cluster.masterOf(keySlot(rule.keyPrefix + ":" + k));
        ASSERT_TRUE(owner);
        EXPECT_EQ(owner->id, target.id) << k << " did not move";
    }
    std::size_t total = 0;
    for (const auto &a : admitted) {
        EXPECT_LE(test::worstExcess(a, 200.0 / 1e6), 20.0 + 1e-6);
        total += a.size();
    }
    EXPECT_GT(total, 1000u);
    std::printf("%llu decisions, %llu redirections followed, 300 slots moved\n",
        static_cast<unsigned long long>(decided.load()),
        static_cast<unsigned long long>(redirections));
}

// A master killed with its replica present: meanwhile decisions follow on_store_error (deny
// here); after the replica's promotion they resume, within the documented bound (docs/
// redis-layout.md: cluster-node-timeout plus the election, 15 s at most with the fixture's 1 s).
TEST_F(ClusterBackend, AKilledMasterFailsOverAndDecisionsResume)
{
    RedisEndpoint endpoint = cluster.endpoint();
    RedisBackend backend(endpoint);
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    const RedisRule rule{test::uniquePrefix("failover"),
        GcraConfig{Rate{1000, kMicrosPerSecond}, 1000}, StoreErrorPolicy::Deny};
    const std::string key = "victim";
    const int slot = keySlot(backend.stateKey(rule, key));
    const ClusterNode *victimNode = cluster.masterOf(slot);
    ASSERT_TRUE(victimNode);
    const ClusterNode victim = *victimNode;
    ASSERT_TRUE(backend.acquire(rule, key).allowed) << backend.lastError();
    int survivorPort = 0;
    for (const RedisAddress &a : backend.masters())
        if (a.port != victim.address.port)
            survivorPort = a.port;
    ASSERT_TRUE(cluster.kill(victim.address.port));
    const auto killedAt = std::chrono::steady_clock::now();
    int storeErrors = 0, deniedOnError = 0;
    double resumedAfter = -1;
    while (std::chrono::steady_clock::now() - killedAt < std::chrono::seconds(20)) {
        const Decision d = backend.acquire(rule, key);
        if (d.reason == Reason::StoreError) {
            ++storeErrors;
            deniedOnError += !d.allowed && !d.failedOpen;
        } else if (d.allowed) {
            resumedAfter
                = std::chrono::duration<double>(std::chrono::steady_clock::now() - killedAt)
                      .count();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    // The node comes back (as a replica of its successor) whatever was measured.
    const bool revived = cluster.revive(victim.address.port);
    ASSERT_GE(resumedAfter, 0) << "no decision in 20 s after the kill: " << backend.lastError();
    std::printf("decisions resumed %.2f s after the master was killed; %d store errors meanwhile\n",
        resumedAfter, storeErrors);
    EXPECT_LE(resumedAfter, 15.0);
    EXPECT_GT(storeErrors, 0) << "the kill was never noticed";
    EXPECT_EQ(deniedOnError, storeErrors) << "on_store_error deny was not followed";
    const ClusterNode *successor = cluster.masterOf(slot, survivorPort);
    ASSERT_TRUE(successor);
    EXPECT_NE(successor->address.port, victim.address.port);
    EXPECT_TRUE(revived);
    // The fixture is whole again, with its first roles, for the tests after this one.
    EXPECT_TRUE(cluster.makeMaster(victim.address.port));
}

TEST_F(ClusterBackend, MetricsAreAddedOnTheMasterOfTheirOwnSlot)
{
    RedisBackend backend(cluster.endpoint());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    RedisRule rule{test::uniquePrefix("metrics"), GcraConfig{Rate{1, kMicrosPerSecond}, 2}};
    rule.metrics = true;
    const Micros now = kStart + 1234;
    // Clients on every master; the route's metrics key lives in one slot of its own.
    for (int i = 0; i < 30; ++i)
        backend.acquire(rule, test::numbered("c", i % 10), 1, now);
    backend.flushMetrics();
    const std::string key = rule.keyPrefix + ":~metrics:" + std::to_string(now / kMicrosPerSecond);
    const ClusterNode *owner = cluster.masterOf(keySlot(key));
    ASSERT_TRUE(owner);
    qs::test::Context c = connectTo(owner->address.port);
    EXPECT_EQ(command(c.get(), {"HGET", key, "a"}), "20");
    EXPECT_EQ(command(c.get(), {"HGET", key, "d"}), "10");
}
