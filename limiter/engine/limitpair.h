#pragma once
// Two limits of a route that count under the same key (a burst and a daily quota per API key),
// kept in one slot of the engine: one lookup and one lock decide both, by limitset.h's rule.
// Engine::addLimitPair makes such a rule; Engine::acquireAll serves limits on different keys.
//
// Why two and not more: a padded slot must fit one cache line (slotarray.h), which leaves 40
// bytes of state: two of the small states (16 bytes at most each), not three. A sliding window
// log keeps a vector and cannot share a slot.
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/limitset.h"

#include <array>
#include <cstring>
#include <optional>
#include <span>
#include <string>

namespace qs::limiter {

struct LimitPairState;

struct LimitPairConfig {
    std::array<AlgorithmConfig, 2> limits;
    std::array<std::int64_t, 2> costs{1, 1}; // per request, each limit's own
    std::array<bool, 2> shadow{};

    std::optional<std::string> validate() const;

    // What AlgorithmTraits asks of a config; a pair is no algorithm of the policy format.
    static constexpr std::string_view kName = "limit_pair";
    static constexpr int kRedisParameterCount = 0;
    using State = LimitPairState;
};

// Each limit's state as bytes (the states are trivially copyable), built on first use: a slot
// starts value-initialised, and a fresh state is not all zeros for every algorithm.
struct LimitPairState {
    static constexpr std::size_t kStateBytes = 16;
    alignas(8) unsigned char bytes[2][kStateBytes] = {};
    bool started = false;
    friend bool operator==(const LimitPairState &, const LimitPairState &) = default;
};

// Both limits decide (`out[i]`: limit i's own decision, `cost` times its own cost); a denied
// request takes from neither.
SetDecision decidePair(const LimitPairConfig &config, LimitPairState &state, Micros now,
    std::int64_t cost, std::span<Decision, 2> out);
// The engine's algorithm interface, so that a pair is a rule like any other: the request's
// answer, the quota of the enforced limit with least left, fresh when both are.
Decision decide(
    const LimitPairConfig &config, LimitPairState &state, Micros now, std::int64_t cost);
Quota peek(const LimitPairConfig &config, const LimitPairState &state, Micros now);
bool isFresh(const LimitPairConfig &config, const LimitPairState &state, Micros now);
// Limit i's state as the variant the engine's state() returns.
AlgorithmState stateOf(const LimitPairConfig &config, const LimitPairState &state, std::size_t i);

} // namespace qs::limiter
