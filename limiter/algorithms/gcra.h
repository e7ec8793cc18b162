#pragma once
// GCRA (generic cell rate algorithm): the leaky bucket as one integer per key, the theoretical
// arrival time. Admits `burst` requests at once, then one every 1/rate.
// Bound: admitted cost in any interval of length d <= burst + rate * d.
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/rate.h"

#include <optional>
#include <string>
#include <string_view>

namespace qs::limiter {

struct GcraState;

struct GcraConfig {
    Rate rate;
    std::int64_t burst = 1;
    std::optional<std::string> validate() const;

    static constexpr Algorithm kId = Algorithm::Gcra;
    static constexpr std::string_view kName = "gcra"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 2; // interval, burst
    using State = GcraState;
};

struct GcraState {
    Micros tat = 0; // theoretical arrival time; at or before now means the key is fresh
    friend bool operator==(const GcraState &, const GcraState &) = default;
};

Decision decide(const GcraConfig &config, GcraState &state, Micros now, std::int64_t cost);
Quota peek(const GcraConfig &config, const GcraState &state, Micros now);
bool isFresh(const GcraConfig &config, const GcraState &state, Micros now);

} // namespace qs::limiter
