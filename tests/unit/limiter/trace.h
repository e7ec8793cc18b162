#pragma once
// Random request traces for property tests: bursts, pauses and steady stretches, costs 1..3.
#include "limiter/time.h"

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

} // namespace qs::limiter::test
