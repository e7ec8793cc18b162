// The embedded scripts and the C++ side agree on how many parameters each script takes
// (EmbedLua.cmake stamps the count in; redisScriptParameterValues sends them).
#include "limiter/redisscripts.h"

#include <gtest/gtest.h>

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
