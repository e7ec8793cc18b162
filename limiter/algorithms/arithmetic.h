#pragma once
// Small numeric helpers shared by the algorithms. Each mirrors one Lua expression in the Redis
// scripts, so keep the order of operations identical when changing either side.
#include "limiter/algorithms/time.h"

#include <algorithm>
#include <cstdint>

namespace qs::limiter::detail {

// Positive values only (negative ones clamp to 0), all far below 2^63. The conversion truncates,
// which IS floor for positive values; this avoids std::ceil/std::floor, which baseline x86-64
// (no SSE4.1 roundsd) turns into a libm call costing more than the whole decision.
inline Micros ceilMicros(double us)
{
    if (us <= 0.0)
        return 0;
    const auto whole = static_cast<Micros>(us);
    return double(whole) < us ? whole + 1 : whole;
}

inline std::int64_t floorCount(double n)
{
    return n <= 0.0 ? 0 : static_cast<std::int64_t>(n);
}

// Start of the window of length `window` that contains t, windows aligned to the Unix epoch.
inline Micros alignedStart(Micros t, Micros window)
{
    const Micros r = t % window;
    return t - (r < 0 ? r + window : r);
}

inline Micros notBefore(Micros now, Micros last)
{
    return last == kNoTime ? now : std::max(now, last);
}

} // namespace qs::limiter::detail
