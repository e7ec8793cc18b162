#pragma once
// Token bucket: a bucket of `capacity` tokens refilled continuously at `refill`; a request takes
// `cost` tokens. Admits bursts up to capacity, then the refill rate.
// Bound: admitted cost in any interval of length d <= capacity + rate * d.
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/rate.h"

#include <optional>
#include <string>
#include <string_view>

namespace qs::limiter {

struct TokenBucketState;

struct TokenBucketConfig {
    std::int64_t capacity = 0;
    Rate refill;
    std::optional<std::string> validate() const;

    static constexpr Algorithm kId = Algorithm::TokenBucket;
    static constexpr std::string_view kName = "token_bucket"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 3; // capacity, refill count, refill period
    using State = TokenBucketState;
};

struct TokenBucketState {
    double tokens = 0.0;
    Micros updatedAt = kNoTime; // kNoTime: never used, the bucket is full
    friend bool operator==(const TokenBucketState &, const TokenBucketState &) = default;
};

Decision decide(
    const TokenBucketConfig &config, TokenBucketState &state, Micros now, std::int64_t cost);
Quota peek(const TokenBucketConfig &config, const TokenBucketState &state, Micros now);
bool isFresh(const TokenBucketConfig &config, const TokenBucketState &state, Micros now);

} // namespace qs::limiter
