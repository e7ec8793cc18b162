#include "limiter/algorithms/rate.h"

namespace qs::limiter {

namespace {
constexpr Micros kMaxPeriod = 366 * kMicrosPerDay;
} // namespace

std::optional<std::string> Rate::validate() const
{
    if (count <= 0)
        return "the rate must allow at least 1 request per period (got " + std::to_string(count)
            + ")";
    if (count > kMaxCount)
        return "the rate's count " + std::to_string(count) + " is absurd; use at most "
            + std::to_string(kMaxCount);
    if (period <= 0)
        return "the rate's period must be positive";
    if (period > kMaxPeriod)
        return "the rate's period is longer than a year; use a shorter period";
    if (perSecond() > double(kMaxCount))
        return "the rate exceeds 1e9 requests per second; lower the count or lengthen the period";
    return std::nullopt;
}

} // namespace qs::limiter
