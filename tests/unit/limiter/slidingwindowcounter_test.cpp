#include "limiter/algorithms/slidingwindowcounter.h"

#include <gtest/gtest.h>

using namespace qs::limiter;

namespace {
constexpr Micros kWindowStart = 28'333'333 * kMicrosPerMinute; // aligned to the minute
SlidingWindowCounterConfig perMinute(std::int64_t limit)
{
    SlidingWindowCounterConfig c;
    c.limit = limit;
    c.window = kMicrosPerMinute;
    return c;
}
} // namespace

TEST(SlidingWindowCounter, WorkedExampleEstimatesNinetyAndAdmits)
{
    // 100/min; the previous window counted 80; 25% into this one with 30 counted:
    // 80 * (1 - 0.25) + 30 = 90 -> one more fits.
    const auto c = perMinute(100);
    SlidingWindowCounterState s{kWindowStart, 30, 80};
    const Micros now = kWindowStart + kMicrosPerMinute / 4;
    EXPECT_DOUBLE_EQ(slidingEstimate(80, 30, now - kWindowStart, c.window), 90.0);
    const Decision d = decide(c, s, now, 1);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.remaining, 9); // 100 - 91
    EXPECT_EQ(s.current, 31);
    EXPECT_EQ(s.previous, 80);
}

TEST(SlidingWindowCounter, DeniesWhenEstimateWouldExceedAndRetryAfterIsHonest)
{
    const auto c = perMinute(100);
    SlidingWindowCounterState s{kWindowStart, 30, 80};
    const Micros now = kWindowStart + kMicrosPerMinute / 4;
    const Decision big = decide(c, s, now, 11); // 90 + 11 > 100
    ASSERT_FALSE(big.allowed);
    EXPECT_EQ(big.reason, Reason::LimitExceeded);
    // 80 * (1 - e) + 30 + 11 <= 100  <=>  e >= 1 - 59/80 = 0.2625 of the minute = 15.75 s.
    EXPECT_EQ(big.retryAfter, 15'750'000 - 15'000'000);
    SlidingWindowCounterState copy = s;
    EXPECT_TRUE(decide(c, copy, now + big.retryAfter, 11).allowed);
    copy = s;
    EXPECT_FALSE(decide(c, copy, now + big.retryAfter - 1, 11).allowed);
}

TEST(SlidingWindowCounter, RollsCurrentIntoPreviousAndForgetsOlderWindows)
{
    const auto c = perMinute(10);
    SlidingWindowCounterState s{kWindowStart, 10, 0};
    // Next window, halfway: 10 * 0.5 = 5 in the estimate.
    Decision d = decide(c, s, kWindowStart + kMicrosPerMinute * 3 / 2, 1);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.remaining, 4);
    // Two windows later nothing of it remains.
    d = decide(c, s, kWindowStart + 4 * kMicrosPerMinute, 1);
    EXPECT_EQ(d.remaining, 9);
    EXPECT_TRUE(isFresh(c, s, kWindowStart + 6 * kMicrosPerMinute));
    EXPECT_FALSE(isFresh(c, s, kWindowStart + 5 * kMicrosPerMinute + 1));
}
