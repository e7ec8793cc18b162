#include "limiter/algorithms/clock.h"

#include <chrono>

namespace qs::limiter {

Micros SystemClock::now() const
{
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

} // namespace qs::limiter
