#include "limiter/engine/limitpair.h"

#include <new>
#include <type_traits>
#include <utility>

namespace qs::limiter {

namespace {

// Runs f(config, typedState) on limit i's state where it lies in the bytes. A sliding log is
// refused by validate() and never stored in a pair: f's default result. In place, not copied
// out and back: the copy-back read 16 bytes that decide() had just written 8 at a time, a
// store-forwarding stall that cost a third of the call.
template <class Bytes, class F>
auto onLimit(const LimitPairConfig &config, Bytes *bytes, std::size_t i, F &&f)
{
    using Result = decltype(f(
        std::declval<const TokenBucketConfig &>(), std::declval<TokenBucketState *>()));
    return std::visit(
        [&](const auto &c) -> Result {
            using State = StateFor_t<std::decay_t<decltype(c)>>;
            if constexpr (std::is_same_v<State, SlidingWindowLogState>) {
                return Result{};
            } else {
                static_assert(std::is_trivially_copyable_v<State>);
                static_assert(sizeof(State) <= LimitPairState::kStateBytes);
                static_assert(alignof(State) <= 8);
                using Target = std::conditional_t<std::is_const_v<Bytes>, const State, State>;
                // The bytes hold a State: placed by start(), and copies of the whole pair
                // (trivially copyable) carry it along.
                return f(c, std::launder(reinterpret_cast<Target *>(bytes)));
            }
        },
        config.limits[i]);
}

void start(const LimitPairConfig &config, LimitPairState &state)
{
    for (std::size_t i = 0; i < 2; ++i)
        std::visit(
            [&](const auto &c) {
                using State = StateFor_t<std::decay_t<decltype(c)>>;
                if constexpr (!std::is_same_v<State, SlidingWindowLogState>)
                    ::new (static_cast<void *>(state.bytes[i])) State{};
            },
            config.limits[i]);
    state.started = true;
}

Decision decideOne(const LimitPairConfig &config, LimitPairState &state, std::size_t i, Micros now,
    std::int64_t cost)
{
    return onLimit(config, state.bytes[i], i,
        [&](const auto &c, auto *s) { return limiter::decide(c, *s, now, cost); });
}

} // namespace

std::optional<std::string> LimitPairConfig::validate() const
{
    for (const AlgorithmConfig &c : limits) {
        if (std::holds_alternative<SlidingWindowLogConfig>(c))
            return "a sliding window log cannot share a slot (its state is a vector): decide it "
                   "with acquireAll";
        if (auto problem = limiter::validate(c))
            return problem;
    }
    for (const std::int64_t c : costs)
        if (c < 0)
            return "a limit's cost must be 0 or more";
    return std::nullopt;
}

SetDecision decidePair(const LimitPairConfig &config, LimitPairState &state, Micros now,
    std::int64_t cost, std::span<Decision, 2> out)
{
    if (!state.started)
        start(config, state);
    LimitPairState before = state;
    // Built in place, for the reason onLimit gives.
    static_assert(std::is_trivially_destructible_v<Decision>);
    for (std::size_t i = 0; i < 2; ++i)
        ::new (static_cast<void *>(&out[i]))
            Decision(decideOne(config, state, i, now, cost * config.costs[i]));
    const SetDecision set = combine(out, config.shadow);
    if (!set.allowed)
        state = before; // a denied request takes from neither
    return set;
}

Decision decide(const LimitPairConfig &config, LimitPairState &state, Micros now, std::int64_t cost)
{
    std::array<Decision, 2> out;
    return decidePair(config, state, now, cost, out).decision;
}

Quota peek(const LimitPairConfig &config, const LimitPairState &state, Micros now)
{
    LimitPairState s = state;
    if (!s.started)
        start(config, s);
    const LimitPairState &view = s;
    std::optional<Quota> least;
    for (std::size_t i = 0; i < 2; ++i) {
        if (config.shadow[i])
            continue;
        const Quota q = onLimit(config, view.bytes[i], i,
            [&](const auto &c, const auto *typed) { return limiter::peek(c, *typed, now); });
        if (!least || q.remaining < least->remaining)
            least = q;
    }
    return least.value_or(Quota{});
}

bool isFresh(const LimitPairConfig &config, const LimitPairState &state, Micros now)
{
    if (!state.started)
        return true;
    for (std::size_t i = 0; i < 2; ++i) {
        const bool fresh = onLimit(config, state.bytes[i], i,
            [&](const auto &c, const auto *typed) { return limiter::isFresh(c, *typed, now); });
        if (!fresh)
            return false;
    }
    return true;
}

AlgorithmState stateOf(const LimitPairConfig &config, const LimitPairState &state, std::size_t i)
{
    LimitPairState s = state;
    if (!s.started)
        start(config, s);
    const LimitPairState &view = s;
    return onLimit(config, view.bytes[i], i,
        [](const auto &, const auto *typed) { return AlgorithmState(*typed); });
}

} // namespace qs::limiter
