#pragma once
#include "limiter/algorithms/time.h"

#include <cstdint>
#include <optional>
#include <string>

namespace qs::limiter {

// The largest count any limit takes (capacity, burst, queue, window limit, a rate's count):
// beyond a billion a limit protects nothing, and products with µs times would overflow.
inline constexpr std::int64_t kMaxCount = 1'000'000'000;

// "count per period", kept as two integers so that 100/min is exact (no 1.666… per second).
struct Rate {
    std::int64_t count = 0;
    Micros period = kMicrosPerSecond;

    // Microseconds between two requests at this rate, rounded UP: an integer interval that is
    // never shorter than the exact one, so integer-time algorithms never admit faster than the
    // rate (3/s becomes one request per 333334 µs).
    Micros intervalCeil() const { return (period + count - 1) / count; }
    double perSecond() const { return double(count) * double(kMicrosPerSecond) / double(period); }

    // Empty when usable; otherwise the reason, phrased for the operator.
    std::optional<std::string> validate() const;
};

} // namespace qs::limiter
