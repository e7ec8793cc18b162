#include "limiter/redis/redisscripts.h"

#include "limiter/algorithms/clock.h"

namespace qs::limiter {

ScriptParameters redisScriptParameterValues(const AlgorithmConfig &config)
{
    return std::visit(
        [](const auto &c) -> ScriptParameters {
            using C = std::decay_t<decltype(c)>;
            constexpr int count = AlgorithmTraits<C>::redisParameterCount;
            if constexpr (std::is_same_v<C, TokenBucketConfig>)
                return {{c.capacity, c.refill.count, c.refill.period}, count};
            else if constexpr (std::is_same_v<C, GcraConfig>)
                return {{c.rate.count > 0 ? c.rate.intervalCeil() : -1, c.burst, 0}, count};
            else if constexpr (std::is_same_v<C, LeakyBucketConfig>)
                return {{c.rate.count > 0 ? c.rate.intervalCeil() : -1, c.queue,
                            c.mode == LeakMode::Shape ? 1 : 0},
                    count};
            else
                return {{c.limit, c.window, 0}, count};
        },
        config);
}

std::size_t redisCalendarArgument(
    const AlgorithmConfig &config, std::optional<Micros> now, char (&out)[64])
{
    const auto *fixed = std::get_if<FixedWindowConfig>(&config);
    if (!fixed || !fixed->calendar)
        return 0;
    return formatGivenWindows(*fixed->calendar, now ? *now : SystemClock().now(), out);
}

int redisScriptParameterCount(Algorithm algorithm)
{
    static constexpr auto kCounts = traitTable([](auto config) {
        return AlgorithmTraits<typename decltype(config)::type>::redisParameterCount;
    });
    return kCounts[std::size_t(algorithm)];
}

namespace {

// GCRA and the leaky bucket travel as their interval (rounded up by the caller): a rate of one
// request per interval decides exactly as the original rate, which decide() also rounds so.
AlgorithmConfig configFrom(Algorithm algorithm, std::span<const std::int64_t> v)
{
    switch (algorithm) {
    case Algorithm::TokenBucket:
        return TokenBucketConfig{v[0], Rate{v[1], v[2]}};
    case Algorithm::LeakyBucket:
        return LeakyBucketConfig{
            Rate{1, v[0]}, v[1], v[2] == 1 ? LeakMode::Shape : LeakMode::Police};
    case Algorithm::Gcra:
        return GcraConfig{Rate{1, v[0]}, v[1]};
    case Algorithm::FixedWindow:
        return FixedWindowConfig{{v[0], v[1]}};
    case Algorithm::SlidingWindowLog:
        return SlidingWindowLogConfig{{v[0], v[1]}};
    case Algorithm::SlidingWindowCounter:
        return SlidingWindowCounterConfig{{v[0], v[1]}};
    }
    return TokenBucketConfig{};
}

} // namespace

std::optional<AlgorithmConfig> configFromScriptParameters(
    Algorithm algorithm, std::span<const std::int64_t> values, std::string &why)
{
    const int expected = redisScriptParameterCount(algorithm);
    if (values.size() != std::size_t(expected)) {
        why = std::string(algorithmName(algorithm)) + " takes " + std::to_string(expected)
            + " parameters, got " + std::to_string(values.size());
        return std::nullopt;
    }
    if (algorithm == Algorithm::LeakyBucket && values[2] != 0 && values[2] != 1) {
        why = "leaky_bucket's third parameter is 1 (shape) or 0 (police), got "
            + std::to_string(values[2]);
        return std::nullopt;
    }
    AlgorithmConfig config = configFrom(algorithm, values);
    if (auto problem = validate(config)) {
        why = std::string(algorithmName(algorithm)) + ": " + *problem;
        return std::nullopt;
    }
    return config;
}

} // namespace qs::limiter
