#pragma once
// The six algorithms behind one value type, for code that picks the algorithm at run time
// (policy conversion, simulator, test console). The engine keeps typed tables per rule instead.
#include "limiter/fixedwindow.h"
#include "limiter/gcra.h"
#include "limiter/leakybucket.h"
#include "limiter/slidingwindowcounter.h"
#include "limiter/slidingwindowlog.h"
#include "limiter/tokenbucket.h"

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace qs::limiter {

enum class Algorithm : std::uint8_t {
    TokenBucket,
    LeakyBucket,
    FixedWindow,
    SlidingWindowLog,
    SlidingWindowCounter,
    Gcra,
};

// Index order matches Algorithm.
using AlgorithmConfig = std::variant<TokenBucketConfig, LeakyBucketConfig, FixedWindowConfig,
    SlidingWindowLogConfig, SlidingWindowCounterConfig, GcraConfig>;
using AlgorithmState = std::variant<TokenBucketState, LeakyBucketState, FixedWindowState,
    SlidingWindowLogState, SlidingWindowCounterState, GcraState>;

// The state type that goes with each config type.
template <class Config>
struct StateFor;
template <>
struct StateFor<TokenBucketConfig> {
    using type = TokenBucketState;
};
template <>
struct StateFor<LeakyBucketConfig> {
    using type = LeakyBucketState;
};
template <>
struct StateFor<FixedWindowConfig> {
    using type = FixedWindowState;
};
template <>
struct StateFor<SlidingWindowLogConfig> {
    using type = SlidingWindowLogState;
};
template <>
struct StateFor<SlidingWindowCounterConfig> {
    using type = SlidingWindowCounterState;
};
template <>
struct StateFor<GcraConfig> {
    using type = GcraState;
};
template <class Config>
using StateFor_t = typename StateFor<Config>::type;

inline constexpr Algorithm kAllAlgorithms[] = {
    Algorithm::TokenBucket,
    Algorithm::LeakyBucket,
    Algorithm::FixedWindow,
    Algorithm::SlidingWindowLog,
    Algorithm::SlidingWindowCounter,
    Algorithm::Gcra,
};

// The names used in policy files, Redis key names and the CLI: "token_bucket", "gcra", …
std::string_view algorithmName(Algorithm algorithm);
std::optional<Algorithm> algorithmFromName(std::string_view name);

Algorithm algorithmOf(const AlgorithmConfig &config);
std::optional<std::string> validate(const AlgorithmConfig &config);

// A fresh state of the config's algorithm.
AlgorithmState freshState(const AlgorithmConfig &config);

// The config and the state must be of the same algorithm (freshState makes sure); a mismatch
// is a programming error and yields a denial with Reason::InvalidRule.
Decision decide(
    const AlgorithmConfig &config, AlgorithmState &state, Micros now, std::int64_t cost);
Quota peek(const AlgorithmConfig &config, const AlgorithmState &state, Micros now);
bool isFresh(const AlgorithmConfig &config, const AlgorithmState &state, Micros now);

} // namespace qs::limiter
