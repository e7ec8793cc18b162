// Switching a route's algorithm in the editor keeps what the operator meant: the same
// long-run rate and burst, in the new algorithm's own fields, and nothing of the old ones.
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/policy/policywriter.h"

#include <gtest/gtest.h>

using namespace qs;
using limiter::Algorithm;

namespace {

LimitSpec tokenBucket10At2PerSecond()
{
    LimitSpec s;
    s.algorithm = Algorithm::TokenBucket;
    s.capacity = 10;
    s.refill = RateValue{QStringLiteral("2/s"), {2, limiter::kMicrosPerSecond}};
    return s;
}

} // namespace

TEST(SwitchAlgorithm, KeepsRateAndBurstInTheNewFieldsOnly)
{
    const LimitSpec gcra = switchAlgorithm(tokenBucket10At2PerSecond(), Algorithm::Gcra);
    EXPECT_EQ(gcra.algorithm, Algorithm::Gcra);
    ASSERT_TRUE(gcra.rate && gcra.burst);
    EXPECT_EQ(gcra.rate->text, QStringLiteral("2/s"));
    EXPECT_EQ(*gcra.burst, 10);
    EXPECT_FALSE(gcra.capacity || gcra.refill || gcra.limit || gcra.window || gcra.queue);

    const LimitSpec window = switchAlgorithm(gcra, Algorithm::SlidingWindowCounter);
    ASSERT_TRUE(window.limit && window.window);
    EXPECT_EQ(*window.limit, 10);
    EXPECT_EQ(window.window->text, QStringLiteral("5s")) << "10 requests at 2/s last 5 s";

    const LimitSpec leaky = switchAlgorithm(tokenBucket10At2PerSecond(), Algorithm::LeakyBucket);
    ASSERT_TRUE(leaky.queue && leaky.mode);
    EXPECT_EQ(*leaky.queue, 9) << "the request in service plus 9 queued: a burst of 10";

    const LimitSpec back = switchAlgorithm(gcra, Algorithm::TokenBucket);
    EXPECT_EQ(*back.capacity, 10);
    EXPECT_EQ(back.refill->text, QStringLiteral("2/s"));
    EXPECT_TRUE(toAlgorithmConfig(back).hasValue());
}

TEST(SwitchAlgorithm, AnUnfinishedLimitGetsAUsableDefault)
{
    LimitSpec empty;
    empty.algorithm = Algorithm::TokenBucket; // no capacity, no refill yet
    const LimitSpec gcra = switchAlgorithm(empty, Algorithm::Gcra);
    EXPECT_TRUE(toAlgorithmConfig(gcra).hasValue());
    EXPECT_EQ(gcra.fieldOrder,
        (QStringList{
            QStringLiteral("algorithm"), QStringLiteral("rate"), QStringLiteral("burst")}));
}
