#pragma once
// "limit requests per window": the parameters shared by the three window algorithms.
#include "limiter/algorithms/rate.h"
#include "limiter/algorithms/time.h"

#include <cstdint>
#include <optional>
#include <string>

namespace qs::limiter {

struct WindowLimit {
    std::int64_t limit = 0;
    Micros window = kMicrosPerMinute;
    // maxLimit differs: a sliding log stores one entry per admitted unit.
    std::optional<std::string> validate(std::int64_t maxLimit = kMaxCount) const;
};

} // namespace qs::limiter
