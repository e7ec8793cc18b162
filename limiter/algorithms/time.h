#pragma once
// Time in the limiter is an integer count of microseconds since the Unix epoch: it fits a Lua
// double exactly (nanoseconds do not), so the C++ engine and the Redis scripts agree bit for bit.
#include <cstdint>
#include <limits>

namespace qs::limiter {

using Micros = std::int64_t;

inline constexpr Micros kMicrosPerMilli = 1'000;
inline constexpr Micros kMicrosPerSecond = 1'000'000;
inline constexpr Micros kMicrosPerMinute = 60 * kMicrosPerSecond;
inline constexpr Micros kMicrosPerHour = 60 * kMicrosPerMinute;
inline constexpr Micros kMicrosPerDay = 24 * kMicrosPerHour;

// Marks a state that has never been written: "fresh". Not a valid time.
inline constexpr Micros kNoTime = std::numeric_limits<Micros>::min();

} // namespace qs::limiter
