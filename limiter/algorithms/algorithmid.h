#pragma once
// The six algorithms' ids, on their own so that each config can name its own
// (limiter/algorithms/algorithm.h checks that the configs' variant follows this order).
#include <cstdint>

namespace qs::limiter {

enum class Algorithm : std::uint8_t {
    TokenBucket,
    LeakyBucket,
    FixedWindow,
    SlidingWindowLog,
    SlidingWindowCounter,
    Gcra,
};

} // namespace qs::limiter
