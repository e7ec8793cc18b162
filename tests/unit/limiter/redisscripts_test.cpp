// The embedded scripts and the C++ side agree on how many parameters each script takes
// (EmbedLua.cmake stamps the count in; redisScriptParameterValues sends them).
#include "limiter/redis/redisscripts.h"
#include "limiter/redis/redisstate.h"
#include "trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <string>

using namespace qs::limiter;

TEST(RedisScripts, EachScriptExpectsTheParameterCountTheBackendSends)
{
    for (Algorithm a : kAllAlgorithms) {
        const AlgorithmConfig fresh = [&]() -> AlgorithmConfig {
            switch (a) {
            case Algorithm::TokenBucket:
                return TokenBucketConfig{};
            case Algorithm::LeakyBucket:
                return LeakyBucketConfig{};
            case Algorithm::FixedWindow:
                return FixedWindowConfig{};
            case Algorithm::SlidingWindowLog:
                return SlidingWindowLogConfig{};
            case Algorithm::SlidingWindowCounter:
                return SlidingWindowCounterConfig{};
            case Algorithm::Gcra:
                return GcraConfig{};
            }
            return {};
        }();
        const std::string header
            = "local nparams = " + std::to_string(redisScriptParameterValues(fresh).count) + "\n";
        EXPECT_EQ(std::string(redisScript(a).substr(0, header.size())), header) << algorithmName(a);
    }
}

// The Redis module receives the scripts' parameters and must rebuild the very config the backend
// sent them for; absurd values are refused, never turned into a config.
TEST(RedisScripts, ParametersReadBackAsTheConfigTheySpell)
{
    for (const test::NamedConfig &n : test::parityConfigs()) {
        const ScriptParameters sent = redisScriptParameterValues(n.config);
        const Algorithm a = algorithmOf(n.config);
        ASSERT_EQ(redisScriptParameterCount(a), sent.count) << n.name;
        std::string why;
        const auto back = configFromScriptParameters(
            a, std::span<const std::int64_t>(sent.begin(), sent.end()), why);
        ASSERT_TRUE(back) << n.name << ": " << why;
        const ScriptParameters again = redisScriptParameterValues(*back);
        EXPECT_TRUE(std::equal(again.begin(), again.end(), sent.begin(), sent.end())) << n.name;
        EXPECT_EQ(algorithmOf(*back), a) << n.name;
    }
    std::string why;
    const std::int64_t zeroRate[] = {10, 0, 1'000'000};
    EXPECT_FALSE(configFromScriptParameters(Algorithm::TokenBucket, zeroRate, why));
    EXPECT_FALSE(why.empty());
    const std::int64_t tooFew[] = {10};
    EXPECT_FALSE(configFromScriptParameters(Algorithm::FixedWindow, tooFew, why));
    const std::int64_t badMode[] = {1000, 4, 7};
    EXPECT_FALSE(configFromScriptParameters(Algorithm::LeakyBucket, badMode, why));
}

// encodeRedisState is decodeRedisState's inverse on every state decide() leaves behind.
TEST(RedisScripts, EncodedStatesDecodeToTheSameState)
{
    int compared = 0;
    for (const test::NamedConfig &n : test::parityConfigs()) {
        AlgorithmState state = freshState(n.config);
        for (const test::Arrival &a :
            test::edgeTrace(5, 200, 1'700'000'000'000'000, kMicrosPerSecond, 9)) {
            decide(n.config, state, a.at, a.cost);
            if (std::holds_alternative<SlidingWindowLogState>(state)) {
                EXPECT_TRUE(encodeRedisState(state).empty());
                continue;
            }
            std::string why;
            const auto back = decodeRedisState(algorithmOf(n.config), encodeRedisState(state), why);
            ASSERT_TRUE(back) << n.name << ": " << why;
            EXPECT_EQ(encodeRedisState(*back), encodeRedisState(state)) << n.name;
            ++compared;
        }
    }
    EXPECT_GE(compared, 1000);
}

// The scripts' TTL rule, on states worked out by hand.
TEST(RedisScripts, TtlLastsUntilTheStateIsFreshAgain)
{
    const Micros t = 1'700'000'000'000'000;
    const TokenBucketConfig bucket{10, Rate{1, kMicrosPerSecond}};
    AlgorithmState tb = freshState(bucket);
    decide(bucket, tb, t, 3); // 3 tokens missing: 3 s to refill
    EXPECT_EQ(redisTtlMillis(bucket, tb, t, false), 3000);
    EXPECT_EQ(redisTtlMillis(bucket, tb, t, true), 4000) << "a caller's clock adds a second";
    EXPECT_EQ(redisTtlMillis(bucket, tb, t + 2'999'999, false), 1) << "rounded up, at least 1";
    EXPECT_EQ(redisTtlMillis(bucket, tb, t + 10'000'000, false), 1);

    FixedWindowConfig fw;
    fw.limit = 5;
    fw.window = 2 * kMicrosPerSecond;
    AlgorithmState w = freshState(fw);
    decide(fw, w, t + 500'000, 1); // windows aligned to the epoch: this one ends at t + 2 s
    EXPECT_EQ(redisTtlMillis(fw, w, t + 500'000, false), 1500);

    SlidingWindowLogConfig log;
    log.limit = 4;
    log.window = kMicrosPerSecond;
    AlgorithmState l = freshState(log);
    EXPECT_EQ(redisTtlMillis(log, l, t, false), 0) << "an empty log sets no TTL";
    decide(log, l, t, 1);
    EXPECT_EQ(redisTtlMillis(log, l, t + 400'000, false), 600);
}
