#pragma once
// One request against several limits (a burst limit and a daily quota on one route): the rule
// that the engine, the Lua scripts and the Redis module all follow.
//   - The request is admitted only if every enforced limit admits it.
//   - A denied request takes from no limit: what the admitting limits took is given back.
//   - The denying limit is named: of several, the one with the longest wait, which is the
//     request's Retry-After.
//   - A shadow limit never denies; its own decision is reported, and like the others it keeps
//     what it took only when the request is admitted.
// No allocation: the caller owns the states and the per-limit decisions.
#include "limiter/algorithms/algorithm.h"

#include <cstdint>
#include <span>

namespace qs::limiter {

// A route's limits are at most this many (the policy format's bound).
inline constexpr std::size_t kMaxLimitsPerRequest = 16;

struct LimitRef {
    const AlgorithmConfig *config = nullptr;
    AlgorithmState *state = nullptr; // of the config's algorithm (freshState makes one)
    std::int64_t cost = 1;
    bool shadow = false;
};

struct SetDecision {
    // The request's answer: the denying limit's decision when denied, else the decision of the
    // enforced limit nearest to denying (least remaining), whose figures headers carry.
    Decision decision;
    int deciding = -1; // index of that limit; -1 when there is no enforced limit
    bool allowed = true;
    int denials = 0; // enforced limits that denied
    int shadowDenials = 0; // shadow limits that would have denied
};

// `out[i]` receives limit i's own decision (what it said before any give-back). More than
// kMaxLimitsPerRequest limits, or fewer decisions than limits, is refused (Reason::InvalidRule).
SetDecision decideAll(std::span<const LimitRef> limits, Micros now, std::span<Decision> out);

// The request's answer from each limit's own decision, by the rule above: what decideAll
// answers, and what a store that decided the limits itself (several.lua) is read back as.
// `shadow[i]`: limit i is a shadow limit.
SetDecision combine(std::span<const Decision> each, std::span<const bool> shadow);

} // namespace qs::limiter
