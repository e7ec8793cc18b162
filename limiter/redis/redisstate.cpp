#include "limiter/redis/redisstate.h"

#include "limiter/algorithms/arithmetic.h"
#include "limiter/redis/packeddoubles.h"

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

namespace {

// µs from now until the state equals a fresh one, as each script computes it before PSETEX.
struct FreshAfter {
    Micros now;
    Micros operator()(const TokenBucketConfig &c, const TokenBucketState &s) const
    {
        // The script's `whole + t - now`: refill time of the missing tokens, rounded up.
        return detail::ceilMicros((double(c.capacity) - s.tokens) * double(c.refill.period)
                   / double(c.refill.count))
            + (s.updatedAt - now);
    }
    Micros operator()(const GcraConfig &, const GcraState &s) const { return s.tat - now; }
    Micros operator()(const LeakyBucketConfig &, const LeakyBucketState &s) const
    {
        return s.nextFree - now;
    }
    Micros operator()(const FixedWindowConfig &c, const FixedWindowState &s) const
    {
        return s.windowStart + c.window - now;
    }
    Micros operator()(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s) const
    {
        // A count in the current window still weighs on the next one.
        return s.windowStart + (s.current > 0 ? 2 : 1) * c.window - now;
    }
    Micros operator()(const SlidingWindowLogConfig &c, const SlidingWindowLogState &s) const
    {
        return s.size() == 0 ? 0 : s.stamps.back() + c.window - now;
    }
    template <class C, class S>
    Micros operator()(const C &, const S &) const
    {
        return 0; // a config and a state of different algorithms: nothing sensible to keep
    }
};

// Lua's math.floor((us + 999) / 1000) for the non-negative values the scripts pass it.
long long ceilMillis(Micros us)
{
    return us <= 0 ? 0 : (us + 999) / 1000;
}

} // namespace

std::string encodeRedisState(const AlgorithmState &state)
{
    return std::visit(
        [](const auto &s) -> std::string {
            using S = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<S, TokenBucketState>) {
                const double v[] = {s.tokens, double(s.updatedAt)};
                return packDoubles(v);
            } else if constexpr (std::is_same_v<S, GcraState>) {
                const double v[] = {double(s.tat)};
                return packDoubles(v);
            } else if constexpr (std::is_same_v<S, LeakyBucketState>) {
                const double v[] = {double(s.nextFree)};
                return packDoubles(v);
            } else if constexpr (std::is_same_v<S, FixedWindowState>) {
                const double v[] = {double(s.windowStart), double(s.count)};
                return packDoubles(v);
            } else if constexpr (std::is_same_v<S, SlidingWindowCounterState>) {
                const double v[] = {double(s.windowStart), double(s.current), double(s.previous)};
                return packDoubles(v);
            } else {
                return {};
            }
        },
        state);
}

long long redisTtlMillis(
    const AlgorithmConfig &config, const AlgorithmState &state, Micros now, bool explicitNow)
{
    const Micros fresh = std::visit(FreshAfter{now}, config, state);
    const long long margin = explicitNow ? 1000 : 0;
    if (std::holds_alternative<SlidingWindowLogState>(state))
        return fresh <= 0 ? 0 : ceilMillis(fresh) + margin;
    return std::max(1LL, ceilMillis(fresh) + margin);
}

} // namespace qs::limiter
