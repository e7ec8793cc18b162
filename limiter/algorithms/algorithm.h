#pragma once
// The six algorithms behind one value type, for code that picks the algorithm at run time
// (policy conversion, simulator, test console). The engine keeps typed tables per rule instead.
#include "limiter/algorithms/fixedwindow.h"
#include "limiter/algorithms/gcra.h"
#include "limiter/algorithms/leakybucket.h"
#include "limiter/algorithms/slidingwindowcounter.h"
#include "limiter/algorithms/slidingwindowlog.h"
#include "limiter/algorithms/tokenbucket.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace qs::limiter {

// What the rest of the code knows about each algorithm is stated once, on its config (as
// Tiled's property traits): kId, kName, kRedisParameterCount and State. The name table, the state
// variant, kAllAlgorithms, the script table (EmbedLua.cmake embeds lua/<kName>.lua) and the
// editor's choices are all derived from the variant below.
template <class Config>
struct AlgorithmTraits {
    static constexpr std::string_view name = Config::kName;
    static constexpr int redisParameterCount = Config::kRedisParameterCount;
    using State = typename Config::State;
};

// The configs in Algorithm's order: a config's index in the variant is its Algorithm.
using AlgorithmConfig = std::variant<TokenBucketConfig, LeakyBucketConfig, FixedWindowConfig,
    SlidingWindowLogConfig, SlidingWindowCounterConfig, GcraConfig>;

template <class Config>
using StateFor_t = typename AlgorithmTraits<Config>::State;

namespace detail {
template <class Variant>
struct StatesOf;
template <class... Configs>
struct StatesOf<std::variant<Configs...>> {
    using type = std::variant<StateFor_t<Configs>...>;
};
template <std::size_t... I>
constexpr bool idsMatchIndices(std::index_sequence<I...>)
{
    return ((std::size_t(std::variant_alternative_t<I, AlgorithmConfig>::kId) == I) && ...);
}
template <std::size_t... I>
constexpr auto allAlgorithms(std::index_sequence<I...>)
{
    return std::array<Algorithm, sizeof...(I)>{Algorithm(I)...};
}
} // namespace detail

// The state that goes with each config, index for index.
using AlgorithmState = detail::StatesOf<AlgorithmConfig>::type;

inline constexpr std::size_t kAlgorithmCount = std::variant_size_v<AlgorithmConfig>;
static_assert(detail::idsMatchIndices(std::make_index_sequence<kAlgorithmCount>()),
    "AlgorithmConfig must list the configs in the order of their kId");
inline constexpr std::array<Algorithm, kAlgorithmCount> kAllAlgorithms
    = detail::allAlgorithms(std::make_index_sequence<kAlgorithmCount>());

// One trait of every algorithm, indexed by Algorithm:
//   traitTable([](auto config) { return AlgorithmTraits<typename decltype(config)::type>::name; })
template <class F>
constexpr auto traitTable(F f)
{
    return [&]<std::size_t... I>(std::index_sequence<I...>)
    {
        return std::array{
            f(std::type_identity<std::variant_alternative_t<I, AlgorithmConfig>>{})...};
    }
    (std::make_index_sequence<kAlgorithmCount>());
}

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
