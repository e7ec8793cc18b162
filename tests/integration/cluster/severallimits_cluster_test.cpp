// Several limits of one request on a real Redis Cluster, where a route's limits fall in
// different slots (Quota Studio's keys carry no hash tag): RedisBackend::acquireAll decides one
// slot at a time and gives back an earlier slot's charge when a later slot denies. Sequential
// traces must decide exactly as limitset.h's rule; concurrent requests on one key must never be
// admitted beyond the rule, and every charge of a denied request must be given back.
#include "clustertest.h"

#include "limiter/algorithms/limitset.h"
#include "limiter/redis/keyslot.h"
#include "limiter/redis/redisbackend.h"
#include "tests/integration/redis/parity.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <random>
#include <set>
#include <thread>

using namespace qs::limiter;

namespace {

constexpr Micros kStart = test::kParityStart;

class ClusterSeveralLimits : public qs::test::ClusterTest {
protected:
    RedisEndpoint luaEndpoint() const
    {
        RedisEndpoint e = cluster.endpoint();
        e.engine = RedisEngine::Lua;
        return e;
    }
};

FixedWindowConfig window(std::int64_t limit, Micros span)
{
    FixedWindowConfig c;
    c.limit = limit;
    c.window = span;
    return c;
}

} // namespace

TEST_F(ClusterSeveralLimits, LimitsInSeveralSlotsDecideExactlyAsTheRule)
{
    RedisBackend backend(luaEndpoint());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    ASSERT_TRUE(backend.isCluster());
    const auto configs = test::parityConfigs();
    std::mt19937_64 rng(11);
    int admitted = 0, denied = 0, acrossSlots = 0, deniedAfterAnAdmittingSlot = 0;
    for (int trace = 0; trace < 60; ++trace) {
        const std::size_t n = 2 + rng() % 3;
        std::vector<RedisRule> rules(n);
        std::vector<AlgorithmConfig> set(n);
        std::vector<bool> shadow(n);
        std::vector<std::int64_t> costs(n);
        const std::string run = test::uniquePrefix("several-slots") + ":" + std::to_string(trace);
        for (std::size_t l = 0; l < n; ++l) {
            set[l] = configs[rng() % configs.size()].config;
            rules[l] = {run + ":" + std::to_string(l), set[l]};
            shadow[l] = rng() % 5 == 0;
            costs[l] = 1 + std::int64_t(rng() % 2);
        }
        std::map<std::pair<std::size_t, int>, AlgorithmState> states;
        Micros now = kStart;
        for (int step = 0; step < 40; ++step) {
            now += Micros(rng() % 500'000);
            const int client = int(rng() % 2);
            const std::string key = test::numbered("c", client);
            std::vector<RedisLimitRequest> requests;
            std::vector<LimitRef> refs;
            std::set<int> slots;
            for (std::size_t l = 0; l < n; ++l) {
                requests.push_back({&rules[l], key, costs[l], shadow[l]});
                auto [it, fresh] = states.try_emplace({l, client}, freshState(set[l]));
                refs.push_back({&set[l], &it->second, costs[l], shadow[l]});
                slots.insert(keySlot(backend.stateKey(rules[l], key)));
            }
            std::vector<Decision> inRedis(n), inCpp(n);
            const SetDecision r = backend.acquireAll(requests, inRedis, now);
            const SetDecision c = decideAll(refs, now, inCpp);
            const std::string where = "trace " + std::to_string(trace) + " step "
                + std::to_string(step) + ": " + backend.lastError();
            ASSERT_EQ(r.allowed, c.allowed) << where;
            ASSERT_EQ(r.deciding, c.deciding) << where;
            for (std::size_t l = 0; l < n; ++l) {
                ASSERT_NE(inRedis[l].reason, Reason::StoreError) << where;
                ASSERT_EQ(inRedis[l].allowed, inCpp[l].allowed) << where << " limit " << l;
                ASSERT_EQ(inRedis[l].remaining, inCpp[l].remaining) << where << " limit " << l;
                ASSERT_EQ(inRedis[l].allowed ? inRedis[l].delay : inRedis[l].retryAfter,
                    inCpp[l].allowed ? inCpp[l].delay : inCpp[l].retryAfter)
                    << where << " limit " << l;
            }
            acrossSlots += slots.size() > 1;
            // A denial whose first limit admitted (and, in its own slot, was charged first).
            deniedAfterAnAdmittingSlot += !c.allowed && inCpp[0].allowed
                && keySlot(backend.stateKey(rules[0], key))
                    != keySlot(backend.stateKey(rules[std::size_t(c.deciding)], key));
            (c.allowed ? admitted : denied)++;
        }
    }
    // The traces cross slots and take the give-back path, or they prove nothing.
    EXPECT_GT(acrossSlots, 2000);
    EXPECT_GT(deniedAfterAnAdmittingSlot, 100);
    EXPECT_GT(admitted, 500);
    EXPECT_GT(denied, 500);
    EXPECT_EQ(backend.refundsLeft(), 0u);
    EXPECT_EQ(backend.refundsByArithmetic(), 0u) << "one client at a time: every give-back "
                                                    "finds the key as it left it";
}

// Four connections send one client's requests at once. The burst (a token bucket) is decided in
// its slot first and charged; the quota (a fixed window) in another slot denies past 12, and
// every such request's burst charge is given back, often after another request wrote the bucket
// (taken off arithmetically). Exact outcome: 12 admitted, and the bucket holds capacity - 12.
TEST_F(
    ClusterSeveralLimits, ConcurrentRequestsAreNeverAdmittedBeyondTheRuleAndTakeNothingWhenDenied)
{
    const std::string run = test::uniquePrefix("several-slots-concurrent");
    const RedisRule burst{run + ":burst", TokenBucketConfig{40, Rate{1, 3600 * kMicrosPerSecond}}};
    const RedisRule quota{run + ":quota", window(12, 3600 * kMicrosPerSecond)};
    const std::string key = "client";
    {
        RedisBackend probe(luaEndpoint());
        ASSERT_TRUE(probe.connect()) << probe.lastError();
        ASSERT_NE(keySlot(probe.stateKey(burst, key)), keySlot(probe.stateKey(quota, key)))
            << "the test needs the two limits in two slots";
    }
    constexpr int kThreads = 4, kRequests = 40;
    std::atomic<int> admitted{0}, storeErrors{0};
    std::atomic<std::uint64_t> arithmetic{0}, left{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            RedisBackend backend(luaEndpoint());
            if (!backend.connect()) {
                storeErrors += kRequests;
                return;
            }
            const RedisLimitRequest limits[] = {{&burst, key}, {&quota, key}};
            Decision out[2];
            for (int i = 0; i < kRequests; ++i) {
                const SetDecision d = backend.acquireAll(limits, out); // Redis TIME
                admitted += d.allowed;
                storeErrors
                    += out[0].reason == Reason::StoreError || out[1].reason == Reason::StoreError;
            }
            arithmetic += backend.refundsByArithmetic();
            left += backend.refundsLeft();
        });
    }
    for (auto &th : threads)
        th.join();
    ASSERT_EQ(storeErrors.load(), 0);
    EXPECT_EQ(admitted.load(), 12) << "the quota's slot decides atomically";
    EXPECT_EQ(left.load(), 0u);
    // What the bucket holds now, read with a request of cost 0 (it takes nothing).
    RedisBackend reader(luaEndpoint());
    ASSERT_TRUE(reader.connect());
    const Decision now = reader.acquire(burst, key, 0);
    EXPECT_EQ(now.remaining, 40 - 12) << "every denied request's burst charge was given back ("
                                      << arithmetic.load() << " of them arithmetically)";
    std::printf(
        "[          ] %d requests, 12 admitted; %llu give-backs found the bucket written by "
        "another request since their charge\n",
        kThreads * kRequests, static_cast<unsigned long long>(arithmetic.load()));
}
