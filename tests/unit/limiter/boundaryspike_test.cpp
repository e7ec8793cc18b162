// The fixed window's boundary spike, and how the sliding algorithms answer the same trace.
#include "limiter/algorithms/algorithm.h"

#include <gtest/gtest.h>

using namespace qs::limiter;

namespace {

constexpr Micros kMinute0 = 28'333'333 * kMicrosPerMinute; // "00:00", aligned to the minute

int admittedBySpike(const AlgorithmConfig &config)
{
    AlgorithmState state = freshState(config);
    int admitted = 0;
    for (int i = 0; i < 100; ++i) // 100 requests at 00:59
        admitted += decide(config, state, kMinute0 + 59 * kMicrosPerSecond, 1).allowed;
    for (int i = 0; i < 100; ++i) // 100 requests at 01:01
        admitted += decide(config, state, kMinute0 + 61 * kMicrosPerSecond, 1).allowed;
    return admitted;
}

template <class Config>
Config hundredPerMinute()
{
    Config c;
    c.limit = 100;
    c.window = kMicrosPerMinute;
    return c;
}

} // namespace

TEST(BoundarySpike, FixedWindowAdmitsTwiceTheLimitWithinTwoSeconds)
{
    EXPECT_EQ(admittedBySpike(hundredPerMinute<FixedWindowConfig>()), 200);
}

TEST(BoundarySpike, SlidingWindowLogAdmitsOnlyTheLimit)
{
    EXPECT_EQ(admittedBySpike(hundredPerMinute<SlidingWindowLogConfig>()), 100);
}

TEST(BoundarySpike, SlidingWindowCounterAdmitsOneMore)
{
    // At 01:01 the previous minute's 100 still weigh 100 * (1 - 1/60) = 98.33: one request
    // fits (99.33 <= 100), the next would make 100.33. So 101 in two seconds: the counter's
    // approximation lets through at most a fraction of one window's limit more than exact.
    EXPECT_EQ(admittedBySpike(hundredPerMinute<SlidingWindowCounterConfig>()), 101);
}
