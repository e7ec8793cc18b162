#include "limiter/engine/engine.h"

#include "trace.h"

#include <gtest/gtest.h>

using namespace qs::limiter;
using qs::limiter::test::numbered;

namespace {
constexpr Micros kStart = 1'700'000'000LL * kMicrosPerSecond;
} // namespace

TEST(Engine, KeysAreIndependentAndRulesAreIndependent)
{
    Engine engine;
    const RuleId a = *engine.addRule(TokenBucketConfig{2, Rate{1, kMicrosPerSecond}}).id;
    const RuleId b = *engine.addRule(TokenBucketConfig{1, Rate{1, kMicrosPerSecond}}).id;
    EXPECT_TRUE(engine.acquire(a, "alice", kStart).allowed);
    EXPECT_TRUE(engine.acquire(a, "alice", kStart).allowed);
    EXPECT_FALSE(engine.acquire(a, "alice", kStart).allowed);
    EXPECT_TRUE(engine.acquire(a, "bob", kStart).allowed);
    EXPECT_TRUE(engine.acquire(b, "alice", kStart).allowed);
    EXPECT_FALSE(engine.acquire(b, "alice", kStart).allowed);
    EXPECT_EQ(engine.usage().keys, 3u);
}

TEST(Engine, RejectsInvalidRulesCostsAndUnknownIds)
{
    Engine engine;
    const RuleResult bad = engine.addRule(GcraConfig{Rate{0, kMicrosPerSecond}, 1});
    EXPECT_FALSE(bad.id.has_value());
    EXPECT_NE(bad.error.find("rate"), std::string::npos);
    EXPECT_EQ(engine.acquire(7, "k", kStart).reason, Reason::InvalidRule);
    const RuleId r = *engine.addRule(GcraConfig{Rate{1, kMicrosPerSecond}, 1}).id;
    EXPECT_EQ(engine.acquire(r, "k", kStart, -1).reason, Reason::InvalidCost);
    EXPECT_EQ(engine.acquire(r, std::string(70'000, 'x'), kStart).reason, Reason::InvalidKey);
}

TEST(Engine, ClockOverloadReadsTheClock)
{
    Engine engine;
    const RuleId r = *engine.addRule(GcraConfig{Rate{1, kMicrosPerSecond}, 1}).id;
    ManualClock clock(kStart);
    EXPECT_TRUE(engine.acquire(r, "k", clock).allowed);
    EXPECT_FALSE(engine.acquire(r, "k", clock).allowed);
    clock.advance(kMicrosPerSecond);
    EXPECT_TRUE(engine.acquire(r, "k", clock).allowed);
}

TEST(Engine, PeekAndStateDoNotTakeQuota)
{
    Engine engine;
    const RuleId r = *engine.addRule(TokenBucketConfig{5, Rate{1, kMicrosPerSecond}}).id;
    engine.acquire(r, "k", kStart, 2);
    EXPECT_EQ(engine.peek(r, "k", kStart)->remaining, 3);
    EXPECT_EQ(engine.peek(r, "k", kStart)->remaining, 3);
    EXPECT_EQ(engine.peek(r, "unknown", kStart)->remaining, 5);
    const auto state = engine.state(r, "k");
    ASSERT_TRUE(state && std::holds_alternative<TokenBucketState>(*state));
    EXPECT_DOUBLE_EQ(std::get<TokenBucketState>(*state).tokens, 3.0);
    EXPECT_FALSE(engine.peek(9, "k", kStart).has_value());
}

TEST(Engine, SweepDropsOnlyFreshKeys)
{
    Engine engine;
    const RuleId r = *engine.addRule(GcraConfig{Rate{1, kMicrosPerSecond}, 2}).id;
    for (int i = 0; i < 1000; ++i)
        engine.acquire(r, numbered("k", i), kStart + i * 1000);
    // Key i drains at kStart + i*1000 + 1 s. Half a second... none are fresh yet.
    EXPECT_EQ(engine.sweep(kStart + 500'000), 0u);
    EXPECT_EQ(engine.sweep(kStart + kMicrosPerSecond + 499'000), 500u);
    EXPECT_EQ(engine.usage().keys, 500u);
    // Survivors decide as before: key 999 still has one request left, not two.
    EXPECT_EQ(engine.peek(r, "k999", kStart + kMicrosPerSecond + 499'000)->remaining, 1);
}

TEST(Engine, GrowingTablesShedFreshKeysInsteadOfGrowingForever)
{
    Engine engine;
    const RuleId r = *engine.addRule(GcraConfig{Rate{1000, kMicrosPerSecond}, 1}).id;
    // Each key is fresh 1 ms after its request, the next comes 5 ms later: of 200 000 keys over
    // 1000 s at most one is live at a time, and the tables keep only what they have not shed
    // yet: a few per shard (measured: 230 over 64 shards), never the 200 000 they saw.
    for (int i = 0; i < 200'000; ++i)
        engine.acquire(r, numbered("client-", i), kStart + Micros(i) * 5'000);
    EXPECT_LE(engine.usage().keys, 8 * 64u);
    EXPECT_LE(engine.sweep(kStart + 200'000LL * 5'000), 8 * 64u);
    EXPECT_EQ(engine.usage().keys, 0u) << "a sweep sheds every fresh key";
}

TEST(Engine, KeyBoundDeniesNewKeysButNeverAdmitsBlind)
{
    // 1000 keys over 64 shards: the newcomer's shard certainly holds some to shed later.
    Engine engine(Engine::Options{1000});
    const RuleId r = *engine.addRule(TokenBucketConfig{3, Rate{1, kMicrosPerMinute}}).id;
    for (int i = 0; i < 1000; ++i)
        ASSERT_TRUE(engine.acquire(r, numbered("k", i), kStart).allowed);
    const Decision full = engine.acquire(r, "newcomer", kStart);
    EXPECT_FALSE(full.allowed);
    EXPECT_EQ(full.reason, Reason::KeyTableFull);
    EXPECT_EQ(full.limit, 3);
    EXPECT_EQ(engine.usage().keyTableFullDenials, 1u);
    // Known keys are still decided normally.
    EXPECT_TRUE(engine.acquire(r, "k5", kStart).allowed);
    // Once keys are fresh again (refilled after 3 minutes) they make room.
    EXPECT_TRUE(engine.acquire(r, "newcomer", kStart + 3 * kMicrosPerMinute).allowed);
}

TEST(Engine, UsageReportsBytes)
{
    Engine engine;
    const RuleId r = *engine.addRule(GcraConfig{Rate{1, kMicrosPerSecond}, 1}).id;
    const std::size_t empty = engine.usage().bytes;
    for (int i = 0; i < 10'000; ++i)
        engine.acquire(r, numbered("key-", i), kStart);
    const EngineUsage u = engine.usage();
    EXPECT_EQ(u.keys, 10'000u);
    EXPECT_GT(u.bytes, empty + 10'000 * (8 + 8)); // at least slot state and key text
    EXPECT_LT(u.bytes, empty + 10'000 * (8 + 64)); // and not wasteful
}

TEST(Engine, SlidingLogKeysAreStoredAndEvicted)
{
    Engine engine;
    SlidingWindowLogConfig c;
    c.limit = 3;
    c.window = kMicrosPerSecond;
    const RuleId r = *engine.addRule(c).id;
    for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(engine.acquire(r, "k", kStart).allowed);
    EXPECT_FALSE(engine.acquire(r, "k", kStart + 999'999).allowed);
    EXPECT_TRUE(engine.acquire(r, "k", kStart + kMicrosPerSecond).allowed);
    EXPECT_EQ(engine.sweep(kStart + 2 * kMicrosPerSecond), 1u);
}

// A batch decides exactly as the same calls one by one: repeated keys within a batch see each
// other's decisions, new keys are inserted (rebuilding shards on the way), bad input reports
// the same reasons.
TEST(Engine, BatchAcquireEqualsSequentialAcquire)
{
    const TokenBucketConfig config{3, {1, kMicrosPerSecond}};
    Engine batched, sequential;
    const RuleId rb = *batched.addRule(config).id, rs = *sequential.addRule(config).id;
    std::vector<std::string> names;
    for (int i = 0; i < 5000; ++i)
        names.push_back(
            numbered("client-", (i * 7919) % 1300)); // repeats, inside and across batches
    for (std::size_t start = 0; start < names.size(); start += 37) {
        const Micros now = kStart + Micros(start) * 1000;
        std::vector<std::string_view> keys;
        for (std::size_t i = start; i < std::min(names.size(), start + 37); ++i)
            keys.push_back(names[i]);
        std::vector<Decision> out(keys.size());
        batched.acquire(rb, keys, now, 1, out);
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const Decision expected = sequential.acquire(rs, keys[i], now, 1);
            ASSERT_EQ(out[i].allowed, expected.allowed) << start + i;
            ASSERT_EQ(out[i].remaining, expected.remaining) << start + i;
            ASSERT_EQ(out[i].retryAfter, expected.retryAfter) << start + i;
        }
    }
    EXPECT_EQ(batched.usage().keys, sequential.usage().keys);

    std::vector<std::string_view> one{"k"};
    std::vector<Decision> out(1);
    batched.acquire(99, one, kStart, 1, out);
    EXPECT_EQ(out[0].reason, Reason::InvalidRule);
    batched.acquire(rb, one, kStart, -1, out);
    EXPECT_EQ(out[0].reason, Reason::InvalidCost);
    const std::string tooLong(70'000, 'x');
    std::vector<std::string_view> mixed{"ok", tooLong};
    std::vector<Decision> two(2);
    batched.acquire(rb, mixed, kStart, 1, two);
    EXPECT_TRUE(two[0].allowed);
    EXPECT_EQ(two[1].reason, Reason::InvalidKey);
}
