#pragma once
// Sliding window log: the time of every admitted unit within the last window. Exact: at most
// `limit` in ANY window of that length. Memory grows with the limit (one entry per unit).
#include "limiter/algorithms/algorithmid.h"
#include "limiter/algorithms/decision.h"
#include "limiter/algorithms/windowlimit.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace qs::limiter {

struct SlidingWindowLogState;

struct SlidingWindowLogConfig : WindowLimit {
    // Every admitted unit is an entry in memory and in Redis: cap it where a key stays cheap.
    static constexpr std::int64_t kMaxLimit = 1'000'000;
    std::optional<std::string> validate() const { return WindowLimit::validate(kMaxLimit); }

    static constexpr Algorithm kId = Algorithm::SlidingWindowLog;
    static constexpr std::string_view kName = "sliding_window_log"; // traits: limiter/algorithms/algorithm.h
    static constexpr int kRedisParameterCount = 2; // limit, window
    using State = SlidingWindowLogState;
};

struct SlidingWindowLogState {
    std::vector<Micros> stamps; // ascending; entries before `head` have expired
    std::size_t head = 0;
    std::size_t size() const { return stamps.size() - head; }
    // The same live entries (expired ones before `head` do not count).
    friend bool operator==(const SlidingWindowLogState &a, const SlidingWindowLogState &b)
    {
        return std::equal(a.stamps.begin() + std::ptrdiff_t(a.head), a.stamps.end(),
            b.stamps.begin() + std::ptrdiff_t(b.head), b.stamps.end());
    }
};

Decision decide(const SlidingWindowLogConfig &config, SlidingWindowLogState &state, Micros now,
    std::int64_t cost);
Quota peek(const SlidingWindowLogConfig &config, const SlidingWindowLogState &state, Micros now);
bool isFresh(const SlidingWindowLogConfig &config, const SlidingWindowLogState &state, Micros now);

} // namespace qs::limiter
