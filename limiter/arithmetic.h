#pragma once
// Small numeric helpers shared by the algorithms. Each mirrors one Lua expression in the Redis
// scripts, so keep the order of operations identical when changing either side.
#include "limiter/time.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace qs::limiter::detail {

inline Micros ceilMicros(double us)
{
    return us <= 0.0 ? 0 : static_cast<Micros>(std::ceil(us));
}

inline std::int64_t floorCount(double n)
{
    return n <= 0.0 ? 0 : static_cast<std::int64_t>(std::floor(n));
}

inline Micros notBefore(Micros now, Micros last)
{
    return last == kNoTime ? now : std::max(now, last);
}

} // namespace qs::limiter::detail
