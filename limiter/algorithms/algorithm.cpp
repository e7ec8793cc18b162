#include "limiter/algorithms/algorithm.h"

namespace qs::limiter {

namespace {

constexpr auto kNames = traitTable(
    [](auto config) { return AlgorithmTraits<typename decltype(config)::type>::name; });

// Calls f(config, state) with both typed; `mismatch` when the state is of another algorithm.
template <class State, class F, class R>
R withMatchingState(const AlgorithmConfig &config, State &state, F &&f, R mismatch)
{
    if (config.index() != state.index())
        return mismatch;
    return std::visit(
        [&](const auto &c) -> R {
            using Config = std::decay_t<decltype(c)>;
            return f(c, *std::get_if<StateFor_t<Config>>(&state));
        },
        config);
}

} // namespace

std::string_view algorithmName(Algorithm algorithm)
{
    return kNames[std::size_t(algorithm)];
}

std::optional<Algorithm> algorithmFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kNames.size(); ++i)
        if (kNames[i] == name)
            return Algorithm(i);
    return std::nullopt;
}

Algorithm algorithmOf(const AlgorithmConfig &config)
{
    return Algorithm(config.index());
}

std::optional<std::string> validate(const AlgorithmConfig &config)
{
    return std::visit([](const auto &c) { return c.validate(); }, config);
}

AlgorithmState freshState(const AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> AlgorithmState { return StateFor_t<std::decay_t<decltype(c)>>{}; },
        config);
}

Decision decide(const AlgorithmConfig &config, AlgorithmState &state, Micros now, std::int64_t cost)
{
    Decision mismatch;
    mismatch.reason = Reason::InvalidRule;
    if (cost < 0) {
        mismatch.reason = Reason::InvalidCost;
        return mismatch;
    }
    return withMatchingState(
        config, state, [&](const auto &c, auto &s) { return qs::limiter::decide(c, s, now, cost); },
        mismatch);
}

Quota peek(const AlgorithmConfig &config, const AlgorithmState &state, Micros now)
{
    return withMatchingState(
        config, state, [&](const auto &c, const auto &s) { return qs::limiter::peek(c, s, now); },
        Quota{});
}

bool isFresh(const AlgorithmConfig &config, const AlgorithmState &state, Micros now)
{
    return withMatchingState(
        config, state,
        [&](const auto &c, const auto &s) { return qs::limiter::isFresh(c, s, now); }, true);
}

} // namespace qs::limiter
