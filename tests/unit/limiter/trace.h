#pragma once
// Random request traces for property and parity tests: bursts, pauses and steady stretches with
// costs 1..3 (randomTrace), and traces aimed at the edges (edgeTrace).
#include "limiter/algorithms/algorithm.h"
#include "limiter/algorithms/time.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter::test {

struct Arrival {
    Micros at = 0;
    std::int64_t cost = 1;
};

// "prefix" + i, built by appending: GCC 12 warns falsely (-Wrestrict, bug 105329) on
// `"literal" + std::to_string(i)`, which -Werror in CI would turn into a failure.
inline std::string numbered(std::string_view prefix, long i)
{
    std::string key(prefix);
    key += std::to_string(i);
    return key;
}

inline std::vector<Arrival> randomTrace(
    std::uint32_t seed, std::size_t n, Micros start, Micros meanGap)
{
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(1.0 / double(meanGap));
    std::uniform_int_distribution<int> cost(1, 3);
    std::uniform_int_distribution<int> mode(0, 9);
    std::vector<Arrival> trace;
    trace.reserve(n);
    Micros t = start;
    while (trace.size() < n) {
        const int m = mode(rng);
        if (m == 0) { // a burst: many requests in the same microsecond
            for (int i = 0; i < 20 && trace.size() < n; ++i)
                trace.push_back({t, cost(rng)});
        } else if (m == 1) { // a pause
            t += Micros(gap(rng) * 50);
        } else {
            t += Micros(gap(rng));
            trace.push_back({t, cost(rng)});
        }
    }
    return trace;
}

// One config of each algorithm (two for the token bucket and the leaky bucket), small enough
// that short traces both admit and deny: shared by the property tests and the C++/Lua parity.
struct NamedConfig {
    const char *name;
    AlgorithmConfig config;
};

inline std::vector<NamedConfig> parityConfigs()
{
    FixedWindowConfig fw;
    fw.limit = 7;
    fw.window = 2 * kMicrosPerSecond;
    SlidingWindowLogConfig log;
    log.limit = 6;
    log.window = 3 * kMicrosPerSecond;
    SlidingWindowCounterConfig swc;
    swc.limit = 9;
    swc.window = 2 * kMicrosPerSecond;
    return {
        {"token_bucket", TokenBucketConfig{8, Rate{3, kMicrosPerSecond}}},
        {"token_bucket_odd", TokenBucketConfig{5, Rate{7, 3 * kMicrosPerSecond}}},
        {"leaky_police", LeakyBucketConfig{Rate{3, kMicrosPerSecond}, 4, LeakMode::Police}},
        {"leaky_shape", LeakyBucketConfig{Rate{5, kMicrosPerSecond}, 3, LeakMode::Shape}},
        {"fixed_window", fw},
        {"sliding_window_log", log},
        {"sliding_window_counter", swc},
        {"gcra", GcraConfig{Rate{3, kMicrosPerSecond}, 4}},
    };
}

// A trace aimed at the branches ordinary traffic rarely takes: costs above what the limit can
// ever admit, late callers (a time before the previous request's, as a gateway whose clock lags
// another's), bursts exactly on a window edge and one µs either side of it (windows aligned to
// the epoch, as the algorithms align them), and long pauses. `limit` is the most the limit admits
// at once; `window` its span.
inline std::vector<Arrival> edgeTrace(
    std::uint32_t seed, std::size_t n, Micros start, Micros window, std::int64_t limit)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> mode(0, 9), small(1, 3);
    std::uniform_int_distribution<std::int64_t> tooMuch(limit + 1, 2 * limit + 1);
    std::uniform_int_distribution<Micros> lag(1, std::max<Micros>(1, window));
    std::exponential_distribution<double> gap(8.0 / double(std::max<Micros>(1, window)));
    std::vector<Arrival> trace;
    trace.reserve(n);
    Micros t = start;
    while (trace.size() < n) {
        switch (mode(rng)) {
        case 0: // more than the limit can ever admit
            trace.push_back({t, tooMuch(rng)});
            break;
        case 1: // a late caller
            trace.push_back({t - lag(rng), small(rng)});
            break;
        case 2: { // a burst around the next window edge: -1 µs, on it, +1 µs
            const Micros edge = (t / window + 1) * window;
            for (const Micros at : {edge - 1, edge, edge + 1})
                for (int i = 0; i < 3 && trace.size() < n; ++i)
                    trace.push_back({at, small(rng)});
            t = edge + 1;
            break;
        }
        case 3: // a pause of a few windows
            t += Micros(gap(rng) * 40);
            break;
        default:
            t += Micros(gap(rng));
            trace.push_back({t, small(rng)});
        }
    }
    trace.resize(n);
    return trace;
}

// The largest admitted cost beyond slope × span over any interval [t_i, t_j] of `admitted`
// (anything with .at and .cost, in time order): a token bucket or GCRA keeps it at most their
// capacity or burst. The bound check of the property tests and of the Redis Cluster tests.
template <class Admitted>
double worstExcess(const std::vector<Admitted> &admitted, double perMicro)
{
    double worst = 0;
    for (std::size_t i = 0; i < admitted.size(); ++i) {
        double sum = 0;
        for (std::size_t j = i; j < admitted.size(); ++j) {
            sum += double(admitted[j].cost);
            worst = std::max(worst, sum - perMicro * double(admitted[j].at - admitted[i].at));
        }
    }
    return worst;
}

} // namespace qs::limiter::test
