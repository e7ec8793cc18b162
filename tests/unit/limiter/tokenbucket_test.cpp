#include "limiter/algorithms/tokenbucket.h"

#include <gtest/gtest.h>

using namespace qs::limiter;

namespace {
constexpr Micros T0 = 1'700'000'000 * kMicrosPerSecond;
const TokenBucketConfig kTen{10, Rate{2, kMicrosPerSecond}};
} // namespace

TEST(TokenBucket, TenAtOnceThenEleventhWaitsHalfASecondThenTwoPerSecond)
{
    TokenBucketState s;
    for (int i = 0; i < 10; ++i) {
        const Decision d = decide(kTen, s, T0, 1);
        ASSERT_TRUE(d.allowed) << "request " << i;
        EXPECT_EQ(d.remaining, 9 - i);
    }
    const Decision eleventh = decide(kTen, s, T0, 1);
    EXPECT_FALSE(eleventh.allowed);
    EXPECT_EQ(eleventh.reason, Reason::LimitExceeded);
    EXPECT_EQ(eleventh.retryAfter, 500'000);
    EXPECT_EQ(eleventh.resetAfter, 5 * kMicrosPerSecond);

    const Micros later = T0 + kMicrosPerSecond;
    EXPECT_TRUE(decide(kTen, s, later, 1).allowed);
    EXPECT_TRUE(decide(kTen, s, later, 1).allowed);
    EXPECT_FALSE(decide(kTen, s, later, 1).allowed);
}

TEST(TokenBucket, CostAboveCapacityIsDeniedWithItsOwnReasonAndTakesNothing)
{
    TokenBucketState s;
    const Decision d = decide(kTen, s, T0, 11);
    EXPECT_FALSE(d.allowed);
    EXPECT_EQ(d.reason, Reason::CostExceedsLimit);
    EXPECT_EQ(d.remaining, 10);
    EXPECT_TRUE(decide(kTen, s, T0, 10).allowed);
}

TEST(TokenBucket, LateCallerCannotRefundItself)
{
    TokenBucketState s;
    for (int i = 0; i < 10; ++i)
        ASSERT_TRUE(decide(kTen, s, T0 + kMicrosPerSecond, 1).allowed);
    // A caller whose clock lags by a second must not see the second's refill again.
    EXPECT_FALSE(decide(kTen, s, T0, 1).allowed);
    EXPECT_EQ(s.updatedAt, T0 + kMicrosPerSecond);
    EXPECT_FALSE(decide(kTen, s, T0 + kMicrosPerSecond + 499'999, 1).allowed);
    EXPECT_TRUE(decide(kTen, s, T0 + kMicrosPerSecond + 500'000, 1).allowed);
}

TEST(TokenBucket, FreshAfterFullRefillOnly)
{
    TokenBucketState s;
    EXPECT_TRUE(isFresh(kTen, s, T0));
    decide(kTen, s, T0, 3);
    EXPECT_FALSE(isFresh(kTen, s, T0 + 1'499'999));
    EXPECT_TRUE(isFresh(kTen, s, T0 + 1'500'000));
    const Quota q = peek(kTen, s, T0 + 500'000);
    EXPECT_EQ(q.remaining, 8);
    EXPECT_EQ(q.resetAfter, 1'000'000);
}

TEST(TokenBucket, ValidationExplainsTheProblem)
{
    EXPECT_FALSE(kTen.validate().has_value());
    EXPECT_NE(TokenBucketConfig({0, Rate{1, kMicrosPerSecond}}).validate()->find("capacity"),
        std::string::npos);
    EXPECT_NE(TokenBucketConfig({5, Rate{0, kMicrosPerSecond}}).validate()->find("refill"),
        std::string::npos);
    EXPECT_TRUE(TokenBucketConfig({5, Rate{1, 0}}).validate().has_value());
}
