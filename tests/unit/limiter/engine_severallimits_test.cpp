// Engine::acquireAll: one request against several limits in the embedded engine. It must answer
// what decideAll() (limitset.h) answers on the same states, on any trace, and under concurrency
// keep the rule that a denied request takes from no limit: every limit's count is the number of
// admitted requests, exactly.
#include "limiter/engine/engine.h"

#include "trace.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

using namespace qs::limiter;
using qs::limiter::test::numbered;

namespace {

constexpr Micros T0 = 1'700'000'040LL * kMicrosPerSecond;

FixedWindowConfig window(std::int64_t limit, Micros span)
{
    FixedWindowConfig c;
    c.limit = limit;
    c.window = span;
    return c;
}

std::int64_t countOf(const Engine &engine, RuleId rule, std::string_view key)
{
    return std::get<FixedWindowState>(*engine.state(rule, key)).count;
}

} // namespace

TEST(EngineSeveralLimits, ABurstPerIpAndADailyQuotaPerKeyDecideTogether)
{
    Engine engine;
    const RuleId burst = *engine.addRule(TokenBucketConfig{2, Rate{1, kMicrosPerSecond}}).id;
    const RuleId daily = *engine.addRule(window(3, 86'400 * kMicrosPerSecond)).id;
    const auto send = [&](std::string_view ip, std::string_view apiKey, Micros now) {
        const EngineLimit limits[] = {{burst, ip}, {daily, apiKey}};
        Decision out[2];
        return engine.acquireAll(limits, now, out);
    };
    // Two from one address exhaust its burst; the third is denied by the burst limit and takes
    // nothing from the key's daily quota.
    EXPECT_TRUE(send("10.0.0.1", "k1", T0).allowed);
    EXPECT_TRUE(send("10.0.0.1", "k1", T0).allowed);
    SetDecision d = send("10.0.0.1", "k1", T0);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.deciding, 0);
    EXPECT_EQ(d.decision.retryAfter, kMicrosPerSecond);
    EXPECT_EQ(countOf(engine, daily, "k1"), 2);
    // Another address of the same key takes the third daily request, then the quota denies
    // and the address's burst keeps its token.
    EXPECT_TRUE(send("10.0.0.2", "k1", T0).allowed);
    d = send("10.0.0.2", "k1", T0);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.deciding, 1);
    EXPECT_EQ(countOf(engine, daily, "k1"), 3);
    const auto bucket = std::get<TokenBucketState>(*engine.state(burst, "10.0.0.2"));
    EXPECT_DOUBLE_EQ(bucket.tokens, 1.0) << "the denied request's token was given back";
}

TEST(EngineSeveralLimits, AShadowLimitIsReportedAndNeverDenies)
{
    Engine engine;
    const RuleId enforced = *engine.addRule(window(5, 60 * kMicrosPerSecond)).id;
    const RuleId candidate = *engine.addRule(window(1, 60 * kMicrosPerSecond)).id;
    const EngineLimit limits[] = {{enforced, "k"}, {candidate, "k", 1, true}};
    Decision out[2];
    EXPECT_TRUE(engine.acquireAll(limits, T0, out).allowed);
    const SetDecision d = engine.acquireAll(limits, T0, out);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.shadowDenials, 1);
    EXPECT_FALSE(out[1].allowed);
    EXPECT_EQ(countOf(engine, enforced, "k"), 2);
}

TEST(EngineSeveralLimits, CallsThatCannotBeDecidedAreRefusedAndTakeNothing)
{
    Engine engine;
    const RuleId a = *engine.addRule(window(5, kMicrosPerSecond)).id;
    const RuleId b = *engine.addRule(window(5, kMicrosPerSecond)).id;
    Decision out[kMaxLimitsPerRequest + 1];
    const auto refusal = [&](std::vector<EngineLimit> limits, std::size_t outSize = 0) {
        return engine.acquireAll(limits, T0, std::span(out, outSize ? outSize : limits.size()));
    };
    const std::string tooLong(Engine::kMaxKeyLength + 1, 'x');
    SetDecision d = refusal({{a, "k"}, {a, "j"}});
    EXPECT_EQ(d.decision.reason, Reason::InvalidRule)
        << "one rule twice would hold one shard twice";
    EXPECT_EQ(d.deciding, 1);
    d = refusal({{a, "k"}, {7, "k"}});
    EXPECT_EQ(d.decision.reason, Reason::InvalidRule);
    EXPECT_EQ(d.deciding, 1);
    d = refusal({{a, "k"}, {b, "k", -1}});
    EXPECT_EQ(d.decision.reason, Reason::InvalidCost);
    d = refusal({{b, tooLong}, {a, "k"}});
    EXPECT_EQ(d.decision.reason, Reason::InvalidKey);
    EXPECT_EQ(d.deciding, 0);
    d = refusal({{a, "k"}, {b, "k"}}, 1);
    EXPECT_EQ(d.decision.reason, Reason::InvalidRule) << "fewer decisions than limits";
    std::vector<EngineLimit> many(kMaxLimitsPerRequest + 1, EngineLimit{a, "k"});
    for (std::size_t i = 0; i < many.size(); ++i)
        many[i].rule = *engine.addRule(window(5, kMicrosPerSecond)).id;
    d = refusal(many);
    EXPECT_EQ(d.decision.reason, Reason::InvalidRule);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(engine.usage().keys, 0u) << "nothing decided, nothing stored";
}

TEST(EngineSeveralLimits, LimitsInAnyOrderOfRulesAnswerInTheCallersOrder)
{
    Engine engine;
    const RuleId first = *engine.addRule(window(1, 60 * kMicrosPerSecond)).id;
    const RuleId second = *engine.addRule(window(3, 60 * kMicrosPerSecond)).id;
    // Held in rule order (first, then second), answered in the order given.
    const EngineLimit limits[] = {{second, "k"}, {first, "k"}};
    Decision out[2];
    EXPECT_TRUE(engine.acquireAll(limits, T0, out).allowed);
    const SetDecision d = engine.acquireAll(limits, T0, out);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.deciding, 1);
    EXPECT_TRUE(out[0].allowed);
    EXPECT_FALSE(out[1].allowed);
    EXPECT_EQ(countOf(engine, second, "k"), 1) << "given back";
}

TEST(EngineSeveralLimits, AFullKeyTableDeniesTheRequestAndTakesFromNoLimit)
{
    Engine engine(Engine::Options{1});
    const RuleId a = *engine.addRule(window(5, 60 * kMicrosPerSecond)).id;
    const RuleId b = *engine.addRule(window(5, 60 * kMicrosPerSecond)).id;
    const EngineLimit limits[] = {{a, "k"}, {b, "k"}};
    Decision out[2];
    const SetDecision d = engine.acquireAll(limits, T0, out);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.decision.reason, Reason::KeyTableFull);
    EXPECT_EQ(d.deciding, 1);
    EXPECT_EQ(countOf(engine, a, "k"), 0);
}

// Random limit sets over every algorithm, random keys, costs and shadow flags: the engine's
// answer, each limit's decision and every state afterwards are decideAll()'s on copies.
TEST(EngineSeveralLimits, RandomTracesAnswerWhatDecideAllAnswers)
{
    std::mt19937_64 rng(7);
    const auto configs = test::parityConfigs();
    int admitted = 0, denied = 0;
    for (int trace = 0; trace < 200; ++trace) {
        Engine engine;
        const std::size_t count = 1 + rng() % 4;
        std::vector<AlgorithmConfig> set;
        std::vector<RuleId> rules;
        std::vector<bool> shadow;
        std::vector<std::int64_t> cost;
        for (std::size_t l = 0; l < count; ++l) {
            set.push_back(configs[rng() % configs.size()].config);
            rules.push_back(*engine.addRule(set.back()).id);
            shadow.push_back(rng() % 4 == 0);
            cost.push_back(std::int64_t(1 + rng() % 2));
        }
        // The reference: one state per limit and client, decided by decideAll().
        std::vector<std::vector<AlgorithmState>> states(3);
        for (auto &perClient : states)
            for (const auto &c : set)
                perClient.push_back(freshState(c));
        Micros now = T0;
        for (int step = 0; step < 80; ++step) {
            now += Micros(rng() % 300'000);
            const std::size_t client = rng() % states.size();
            const std::string key = numbered("client-", long(client));
            std::vector<EngineLimit> limits;
            std::vector<LimitRef> refs;
            for (std::size_t l = 0; l < count; ++l) {
                limits.push_back({rules[l], key, cost[l], shadow[l]});
                refs.push_back({&set[l], &states[client][l], cost[l], shadow[l]});
            }
            std::vector<Decision> got(count), want(count);
            const SetDecision g = engine.acquireAll(limits, now, got);
            const SetDecision w = decideAll(refs, now, want);
            ASSERT_EQ(g.allowed, w.allowed) << "trace " << trace << " step " << step;
            ASSERT_EQ(g.deciding, w.deciding);
            ASSERT_EQ(g.decision.retryAfter, w.decision.retryAfter);
            ASSERT_EQ(g.decision.remaining, w.decision.remaining);
            for (std::size_t l = 0; l < count; ++l) {
                ASSERT_EQ(got[l].allowed, want[l].allowed);
                ASSERT_EQ(got[l].retryAfter, want[l].retryAfter);
                ASSERT_EQ(*engine.state(rules[l], key), states[client][l])
                    << "trace " << trace << " step " << step << " limit " << l;
            }
            (g.allowed ? admitted : denied)++;
        }
    }
    EXPECT_GT(admitted, 2000);
    EXPECT_GT(denied, 2000);
}

// Four threads send requests of two limits over a few shared keys, and new keys that make the
// tables grow (rebuilds wait for the threads inside a shard) while slots are held. Fixed windows
// longer than the run: each limit's count must be the number of requests admitted on that key,
// exactly, which fails if any denied request's charge survives or another request decides
// between a limit's decision and its give-back.
TEST(EngineSeveralLimits, UnderConcurrencyADeniedRequestTakesFromNoLimit)
{
    Engine engine;
    const RuleId perIp = *engine.addRule(window(600, 3600 * kMicrosPerSecond)).id;
    const RuleId perKey = *engine.addRule(window(1500, 3600 * kMicrosPerSecond)).id;
    constexpr int kThreads = 4, kRequests = 20'000, kIps = 4, kKeys = 2;
    std::atomic<int> admittedBy[kIps][kKeys] = {};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            std::mt19937 rng{unsigned(t)};
            Decision out[2];
            for (int i = 0; i < kRequests; ++i) {
                // Nine in ten requests carry key 0: its quota denies first, then the addresses'.
                const int ip = int(rng() % kIps), key = rng() % 10 == 0 ? 1 : 0;
                const std::string ipKey = numbered("ip-", ip), apiKey = numbered("key-", key);
                const EngineLimit limits[] = {{perIp, ipKey}, {perKey, apiKey}};
                if (engine.acquireAll(limits, T0 + i, out).allowed)
                    ++admittedBy[ip][key];
                if (i % 8 == 0) { // a new key in each rule: inserts and table rebuilds
                    const std::string fresh = numbered("new-" + std::to_string(t) + "-", i);
                    const EngineLimit other[] = {{perKey, fresh}, {perIp, fresh}};
                    engine.acquireAll(other, T0 + i, out);
                }
            }
        });
    }
    for (auto &th : threads)
        th.join();
    int total = 0;
    for (int ip = 0; ip < kIps; ++ip) {
        int perIpAdmitted = 0;
        for (int key = 0; key < kKeys; ++key)
            perIpAdmitted += admittedBy[ip][key];
        EXPECT_EQ(countOf(engine, perIp, numbered("ip-", ip)), perIpAdmitted);
        total += perIpAdmitted;
    }
    for (int key = 0; key < kKeys; ++key) {
        int perKeyAdmitted = 0;
        for (int ip = 0; ip < kIps; ++ip)
            perKeyAdmitted += admittedBy[ip][key];
        EXPECT_EQ(countOf(engine, perKey, numbered("key-", key)), perKeyAdmitted);
    }
    // Both limits denied, or the test proves nothing about give-back: key 0's quota is spent,
    // and so is every address's, with key 1's quota left over.
    EXPECT_EQ(countOf(engine, perKey, "key-0"), 1500);
    EXPECT_EQ(total, kIps * 600);
}

// Two limits on one key in one slot (Engine::addLimitPair): on random traces over every
// algorithm but the sliding log, the same answers as decideAll on two separate states.
TEST(EngineLimitPair, RandomTracesAnswerWhatDecideAllAnswers)
{
    std::mt19937_64 rng(5);
    std::vector<AlgorithmConfig> configs;
    for (const auto &n : test::parityConfigs())
        if (!std::holds_alternative<SlidingWindowLogConfig>(n.config))
            configs.push_back(n.config);
    int admitted = 0, denied = 0;
    for (int trace = 0; trace < 200; ++trace) {
        LimitPairConfig pair;
        for (std::size_t l = 0; l < 2; ++l) {
            pair.limits[l] = configs[rng() % configs.size()];
            pair.costs[l] = std::int64_t(1 + rng() % 2);
            pair.shadow[l] = rng() % 5 == 0;
        }
        Engine engine;
        const RuleId rule = *engine.addLimitPair(pair).id;
        std::vector<std::array<AlgorithmState, 2>> states(3);
        for (auto &s : states)
            s = {freshState(pair.limits[0]), freshState(pair.limits[1])};
        Micros now = T0;
        for (int step = 0; step < 80; ++step) {
            now += Micros(rng() % 300'000);
            const std::size_t client = rng() % states.size();
            const std::string key = numbered("client-", long(client));
            const LimitRef refs[]
                = {{&pair.limits[0], &states[client][0], pair.costs[0], pair.shadow[0]},
                    {&pair.limits[1], &states[client][1], pair.costs[1], pair.shadow[1]}};
            std::array<Decision, 2> got, want;
            const SetDecision g = engine.acquirePair(rule, key, now, got);
            const SetDecision w = decideAll(refs, now, want);
            ASSERT_EQ(g.allowed, w.allowed) << "trace " << trace << " step " << step;
            ASSERT_EQ(g.deciding, w.deciding);
            ASSERT_EQ(g.decision.retryAfter, w.decision.retryAfter);
            for (std::size_t l = 0; l < 2; ++l) {
                ASSERT_EQ(got[l].allowed, want[l].allowed) << "limit " << l;
                ASSERT_EQ(got[l].remaining, want[l].remaining) << "limit " << l;
                ASSERT_EQ(got[l].retryAfter, want[l].retryAfter) << "limit " << l;
            }
            ASSERT_EQ(*engine.state(rule, key), states[client][0]) << "the first limit's state";
            (g.allowed ? admitted : denied)++;
        }
    }
    EXPECT_GT(admitted, 2000);
    EXPECT_GT(denied, 2000);
}

TEST(EngineLimitPair, ASlidingLogCannotShareASlotAndOtherRulesAreNoPairs)
{
    Engine engine;
    LimitPairConfig pair;
    pair.limits = {window(5, kMicrosPerSecond), SlidingWindowLogConfig{{5, kMicrosPerSecond}}};
    const RuleResult refused = engine.addLimitPair(pair);
    EXPECT_FALSE(refused.id);
    EXPECT_NE(refused.error.find("sliding window log"), std::string::npos) << refused.error;
    const RuleId single = *engine.addRule(window(5, kMicrosPerSecond)).id;
    std::array<Decision, 2> out;
    EXPECT_EQ(engine.acquirePair(single, "k", T0, out).decision.reason, Reason::InvalidRule);
    EXPECT_EQ(engine.acquirePair(99, "k", T0, out).decision.reason, Reason::InvalidRule);
}

TEST(EngineLimitPair, AFullKeyTableDeniesBothLimits)
{
    Engine engine(Engine::Options{1});
    LimitPairConfig pair;
    pair.limits = {window(5, 60 * kMicrosPerSecond), window(9, 60 * kMicrosPerSecond)};
    const RuleId rule = *engine.addLimitPair(pair).id;
    std::array<Decision, 2> out;
    EXPECT_TRUE(engine.acquirePair(rule, "first", T0, out).allowed);
    const SetDecision full = engine.acquirePair(rule, "second", T0, out);
    EXPECT_FALSE(full.allowed);
    EXPECT_EQ(full.decision.reason, Reason::KeyTableFull);
    EXPECT_EQ(out[1].reason, Reason::KeyTableFull);
    EXPECT_EQ(engine.usage().keyTableFullDenials, 1u);
}

// Four threads on a few keys of a pair: the first limit's count is the number of admitted
// requests of its key exactly, the second limit's quota binding first.
TEST(EngineLimitPair, UnderConcurrencyADeniedRequestTakesFromNeither)
{
    Engine engine;
    LimitPairConfig pair;
    pair.limits = {window(100'000, 3600 * kMicrosPerSecond), window(700, 3600 * kMicrosPerSecond)};
    const RuleId rule = *engine.addLimitPair(pair).id;
    constexpr int kThreads = 4, kRequests = 5'000, kKeys = 3;
    std::atomic<int> admittedBy[kKeys] = {};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            std::mt19937 rng{unsigned(t)};
            std::array<Decision, 2> out;
            for (int i = 0; i < kRequests; ++i) {
                const int k = int(rng() % kKeys);
                if (engine.acquirePair(rule, numbered("key-", k), T0 + i, out).allowed)
                    ++admittedBy[k];
            }
        });
    for (auto &th : threads)
        th.join();
    for (int k = 0; k < kKeys; ++k) {
        EXPECT_EQ(admittedBy[k].load(), 700);
        EXPECT_EQ(countOf(engine, rule, numbered("key-", k)), 700)
            << "denied requests took nothing";
    }
}
