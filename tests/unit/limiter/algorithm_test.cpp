// Exact decisions on small known traces, through the run-time variant interface.
#include "limiter/algorithms/algorithm.h"

#include <gtest/gtest.h>

using namespace qs::limiter;

namespace {
constexpr Micros T0 = 1'700'000'040LL * kMicrosPerSecond;
} // namespace

TEST(Algorithm, NamesRoundTrip)
{
    for (Algorithm a : kAllAlgorithms)
        EXPECT_EQ(algorithmFromName(algorithmName(a)), a);
    EXPECT_FALSE(algorithmFromName("token-bucket").has_value());
    EXPECT_EQ(algorithmName(Algorithm::SlidingWindowCounter), "sliding_window_counter");
}

TEST(Algorithm, GcraAdmitsBurstThenOnePerInterval)
{
    const AlgorithmConfig c = GcraConfig{Rate{2, kMicrosPerSecond}, 3};
    AlgorithmState s = freshState(c);
    EXPECT_TRUE(decide(c, s, T0, 1).allowed);
    EXPECT_TRUE(decide(c, s, T0, 1).allowed);
    const Decision third = decide(c, s, T0, 1);
    EXPECT_TRUE(third.allowed);
    EXPECT_EQ(third.remaining, 0);
    EXPECT_EQ(third.resetAfter, 1'500'000);
    const Decision fourth = decide(c, s, T0, 1);
    EXPECT_FALSE(fourth.allowed);
    EXPECT_EQ(fourth.retryAfter, 500'000);
    EXPECT_FALSE(decide(c, s, T0 + 499'999, 1).allowed);
    EXPECT_TRUE(decide(c, s, T0 + 500'000, 1).allowed);
    EXPECT_EQ(decide(c, s, T0, 4).reason, Reason::CostExceedsLimit);
}

TEST(Algorithm, LeakyBucketShapeDelaysEachRequestByOneInterval)
{
    // 5/s with 2 waiting: like NGINX rate=5r/s burst=2 (no nodelay).
    const AlgorithmConfig c = LeakyBucketConfig{Rate{5, kMicrosPerSecond}, 2, LeakMode::Shape};
    AlgorithmState s = freshState(c);
    EXPECT_EQ(decide(c, s, T0, 1).delay, 0);
    EXPECT_EQ(decide(c, s, T0, 1).delay, 200'000);
    EXPECT_EQ(decide(c, s, T0, 1).delay, 400'000);
    const Decision overflow = decide(c, s, T0, 1);
    EXPECT_FALSE(overflow.allowed);
    EXPECT_EQ(overflow.delay, 0);
    EXPECT_EQ(overflow.retryAfter, 200'000);
    const Decision later = decide(c, s, T0 + 200'000, 1);
    EXPECT_TRUE(later.allowed);
    EXPECT_EQ(later.delay, 400'000);
}

TEST(Algorithm, FixedWindowResetsAtTheAlignedBoundary)
{
    FixedWindowConfig f;
    f.limit = 2;
    f.window = 10 * kMicrosPerSecond;
    const AlgorithmConfig c = f;
    AlgorithmState s = freshState(c);
    const Micros edge = T0 - T0 % f.window + f.window; // next aligned window
    EXPECT_TRUE(decide(c, s, edge - 1, 1).allowed);
    EXPECT_TRUE(decide(c, s, edge - 1, 1).allowed);
    const Decision denied = decide(c, s, edge - 1, 1);
    EXPECT_FALSE(denied.allowed);
    EXPECT_EQ(denied.retryAfter, 1);
    EXPECT_TRUE(decide(c, s, edge, 2).allowed);
    EXPECT_FALSE(decide(c, s, edge - 5, 1).allowed) << "a late caller sees the newer window";
}

TEST(Algorithm, SlidingLogRetryAfterPointsAtTheOldestEntryThatMustExpire)
{
    SlidingWindowLogConfig l;
    l.limit = 3;
    l.window = kMicrosPerSecond;
    const AlgorithmConfig c = l;
    AlgorithmState s = freshState(c);
    EXPECT_TRUE(decide(c, s, T0, 1).allowed);
    EXPECT_TRUE(decide(c, s, T0 + 100, 2).allowed);
    const Decision d = decide(c, s, T0 + 200, 2); // needs 2 of 3 entries gone: the one at +100
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.retryAfter, kMicrosPerSecond - 100);
    EXPECT_EQ(d.resetAfter, kMicrosPerSecond - 100);
}

TEST(Algorithm, MismatchedStateAndNegativeCostAreRefused)
{
    const AlgorithmConfig c = GcraConfig{Rate{1, kMicrosPerSecond}, 1};
    AlgorithmState wrong = TokenBucketState{};
    EXPECT_EQ(decide(c, wrong, T0, 1).reason, Reason::InvalidRule);
    AlgorithmState s = freshState(c);
    EXPECT_EQ(decide(c, s, T0, -1).reason, Reason::InvalidCost);
}
