#pragma once
// Leaky bucket: requests leave at `rate`; `queue` more may wait behind the one being served.
// mode Shape admits with a delay until the request's departure time (NGINX limit_req without
// nodelay); mode Police admits the same requests at once and rejects the overflow (with nodelay).
// Bound: departures are spaced >= 1/rate per unit of cost and never more than `queue` units wait.
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/rate.h"

#include <optional>
#include <string>
#include <string_view>

namespace qs::limiter {

enum class LeakMode : std::uint8_t { Police, Shape };

struct LeakyBucketState;

struct LeakyBucketConfig {
    Rate rate;
    std::int64_t queue = 0;
    LeakMode mode = LeakMode::Police;
    std::optional<std::string> validate() const;

    static constexpr Algorithm kId = Algorithm::LeakyBucket;
    static constexpr std::string_view kName = "leaky_bucket"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 3; // interval, queue, shape
    using State = LeakyBucketState;
};

struct LeakyBucketState {
    Micros nextFree = 0; // when the bucket has drained; at or before now means fresh
    friend bool operator==(const LeakyBucketState &, const LeakyBucketState &) = default;
};

Decision decide(
    const LeakyBucketConfig &config, LeakyBucketState &state, Micros now, std::int64_t cost);
Quota peek(const LeakyBucketConfig &config, const LeakyBucketState &state, Micros now);
bool isFresh(const LeakyBucketConfig &config, const LeakyBucketState &state, Micros now);

} // namespace qs::limiter
