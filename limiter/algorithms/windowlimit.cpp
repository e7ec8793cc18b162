#include "limiter/algorithms/windowlimit.h"

namespace qs::limiter {

std::optional<std::string> WindowLimit::validate(std::int64_t maxLimit) const
{
    if (limit <= 0)
        return "limit must be at least 1 (got " + std::to_string(limit) + ")";
    if (limit > maxLimit)
        return "limit " + std::to_string(limit) + " is too large for this algorithm; use at most "
            + std::to_string(maxLimit);
    if (window < kMicrosPerMilli)
        return "window must be at least 1ms";
    if (window > 366 * kMicrosPerDay)
        return "window is longer than a year; use a shorter window";
    return std::nullopt;
}

} // namespace qs::limiter
