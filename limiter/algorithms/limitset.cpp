#include "limiter/algorithms/limitset.h"

#include <array>
#include <new>

namespace qs::limiter {

namespace {

// Giving back an admitted decision without allocating: the small states are restored from a
// copy; the sliding log, whose vector a copy would allocate, drops the `cost` entries an
// admission appended at its end (nothing after them was removed).
void giveBack(const LimitRef &limit, const AlgorithmState &before)
{
    if (auto *log = std::get_if<SlidingWindowLogState>(limit.state)) {
        log->stamps.resize(log->stamps.size() - std::size_t(limit.cost));
        return;
    }
    *limit.state = before;
}

} // namespace

SetDecision combine(std::span<const Decision> each, std::span<const bool> shadow)
{
    SetDecision set;
    for (std::size_t i = 0; i < each.size(); ++i) {
        const Decision &d = each[i];
        if (shadow[i]) {
            set.shadowDenials += d.allowed ? 0 : 1;
            continue;
        }
        if (!d.allowed) {
            ++set.denials;
            const bool longer
                = set.allowed || d.retryAfter > each[std::size_t(set.deciding)].retryAfter;
            set.allowed = false;
            if (longer)
                set.deciding = int(i);
        } else if (set.allowed
            && (set.deciding < 0 || d.remaining < each[std::size_t(set.deciding)].remaining)) {
            set.deciding = int(i);
        }
    }
    if (set.deciding >= 0)
        set.decision = each[std::size_t(set.deciding)];
    set.decision.allowed = set.allowed;
    return set;
}

SetDecision decideAll(std::span<const LimitRef> limits, Micros now, std::span<Decision> out)
{
    if (limits.size() > kMaxLimitsPerRequest || out.size() < limits.size()) {
        // A caller's mistake: refused, never admitted, nothing written past `out`.
        SetDecision refused;
        refused.allowed = refused.decision.allowed = false;
        refused.decision.reason = Reason::InvalidRule;
        return refused;
    }
    // Before-images of the states, built only for the limits there are (an array of 16
    // variants, built and destroyed on every call, cost the simulator a quarter of its speed).
    // A sliding log's is a placeholder: its give-back needs none (giveBack above).
    alignas(AlgorithmState) unsigned char raw[kMaxLimitsPerRequest * sizeof(AlgorithmState)];
    auto *before = reinterpret_cast<AlgorithmState *>(raw);
    std::array<bool, kMaxLimitsPerRequest> shadow{};
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const LimitRef &l = limits[i];
        if (std::holds_alternative<SlidingWindowLogState>(*l.state))
            new (&before[i]) AlgorithmState(TokenBucketState{});
        else
            new (&before[i]) AlgorithmState(*l.state);
        out[i] = decide(*l.config, *l.state, now, l.cost);
        shadow[i] = l.shadow;
    }
    const SetDecision set
        = combine(out.first(limits.size()), std::span(shadow.data(), limits.size()));
    for (std::size_t i = 0; i < limits.size(); ++i) {
        if (!set.allowed && out[i].allowed)
            giveBack(limits[i], before[i]);
        before[i].~AlgorithmState();
    }
    return set;
}

} // namespace qs::limiter
