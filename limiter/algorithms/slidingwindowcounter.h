#pragma once
// Sliding window counter: two fixed-window counters, the previous one weighted by how much of it
// still overlaps the sliding window: estimate = current + previous * (1 - elapsed / window).
// Two integers per key; close to a true sliding window when traffic is even, and at a window
// boundary it admits a little more than the limit at most (see docs/algorithms.md).
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/windowlimit.h"

namespace qs::limiter {

struct SlidingWindowCounterState;

struct SlidingWindowCounterConfig : WindowLimit {
    std::optional<std::string> validate() const { return WindowLimit::validate(); }

    static constexpr Algorithm kId = Algorithm::SlidingWindowCounter;
    static constexpr std::string_view kName
        = "sliding_window_counter"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 2; // limit, window
    using State = SlidingWindowCounterState;
};

struct SlidingWindowCounterState {
    Micros windowStart = kNoTime;
    std::int32_t current = 0; // limit <= 1e9 keeps counts in 32 bits: 16 bytes per key
    std::int32_t previous = 0;
    friend bool operator==(const SlidingWindowCounterState &, const SlidingWindowCounterState &)
        = default;
};

// estimate = previous * ((window - elapsed) / window) + current, in this order (the Lua twin
// computes the same expression).
double slidingEstimate(std::int64_t previous, std::int64_t current, Micros elapsed, Micros window);

Decision decide(const SlidingWindowCounterConfig &config, SlidingWindowCounterState &state,
    Micros now, std::int64_t cost);
Quota peek(
    const SlidingWindowCounterConfig &config, const SlidingWindowCounterState &state, Micros now);
bool isFresh(
    const SlidingWindowCounterConfig &config, const SlidingWindowCounterState &state, Micros now);

} // namespace qs::limiter
