#include "limiter/redisstate.h"

#include "limiter/packeddoubles.h"

#include <algorithm>
#include <cmath>

namespace qs::limiter {

namespace {

// The scripts' bound for times and counts: below 2^53, so doubles hold them exactly.
constexpr double kMaxStoredValue = 4e15;

bool storable(double v)
{
    return v >= 0 && v <= kMaxStoredValue;
} // false for NaN too
bool storableWhole(double v)
{
    return storable(v) && std::floor(v) == v;
}

std::string sizeText(std::size_t bytes, std::size_t expected, std::string_view what)
{
    return std::to_string(bytes) + " bytes, expected a " + std::to_string(expected) + "-byte "
        + std::string(what);
}

} // namespace

std::optional<AlgorithmState> decodeRedisState(
    Algorithm algorithm, std::string_view bytes, std::string &why)
{
    double v[3] = {};
    const auto unpack = [&](std::size_t n, std::string_view what) {
        if (unpackDoubles(bytes, std::span<double>(v, n)))
            return true;
        why = sizeText(bytes.size(), n * sizeof(double), what);
        return false;
    };
    const auto bad = [&](std::string_view what) {
        why = "a value out of range in the " + std::string(what)
            + " (negative, NaN, fractional or beyond 4e15)";
        return std::nullopt;
    };
    switch (algorithm) {
    case Algorithm::TokenBucket:
        if (!unpack(2, "token bucket"))
            return std::nullopt;
        if (!storable(v[0]) || !storable(v[1]))
            return bad("token bucket");
        return TokenBucketState{v[0], Micros(std::llround(v[1]))};
    case Algorithm::LeakyBucket:
    case Algorithm::Gcra:
        if (!unpack(1, "schedule"))
            return std::nullopt;
        if (!storableWhole(v[0]))
            return bad("schedule");
        if (algorithm == Algorithm::Gcra)
            return GcraState{Micros(v[0])};
        return LeakyBucketState{Micros(v[0])};
    case Algorithm::FixedWindow:
        if (!unpack(2, "fixed window"))
            return std::nullopt;
        if (!storableWhole(v[0]) || !storableWhole(v[1]))
            return bad("fixed window");
        return FixedWindowState{Micros(v[0]), std::int64_t(v[1])};
    case Algorithm::SlidingWindowCounter:
        if (!unpack(3, "sliding window counter"))
            return std::nullopt;
        if (!storableWhole(v[0]) || !storableWhole(v[1]) || !storableWhole(v[2]) || v[1] > 1e9
            || v[2] > 1e9)
            return bad("sliding window counter");
        return SlidingWindowCounterState{Micros(v[0]), std::int32_t(v[1]), std::int32_t(v[2])};
    case Algorithm::SlidingWindowLog:
        why = "a sliding window log is a sorted set, not a string";
        return std::nullopt;
    }
    why = "unknown algorithm";
    return std::nullopt;
}

std::optional<AlgorithmState> decodeRedisLog(std::span<const double> scores, std::string &why)
{
    SlidingWindowLogState state;
    state.stamps.reserve(scores.size());
    for (double s : scores) {
        if (!storableWhole(s)) {
            why = "a score out of range in the sliding window log (negative, NaN, fractional "
                  "or beyond 4e15)";
            return std::nullopt;
        }
        state.stamps.push_back(Micros(s));
    }
    std::sort(state.stamps.begin(), state.stamps.end());
    return state;
}

} // namespace qs::limiter
