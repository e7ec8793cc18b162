#include "limiter/algorithms/admissionbound.h"

#include <cmath>
#include <limits>

namespace qs::limiter {

namespace {

std::int64_t saturated(double value)
{
    constexpr double top = double(std::numeric_limits<std::int64_t>::max());
    return value >= top ? std::numeric_limits<std::int64_t>::max() : std::int64_t(value);
}

// `burst` at once, then `rate`: token bucket, GCRA, leaky bucket.
std::int64_t burstPlusRate(std::int64_t burst, const Rate &rate, Micros span)
{
    return saturated(
        double(burst) + std::ceil(double(rate.count) * double(span) / double(rate.period)));
}

// Windows of `window` that an interval of `span` can touch, `extra` more for algorithms whose
// count carries over from the window before.
std::int64_t windowsTouched(const WindowLimit &w, Micros span, int extra)
{
    return saturated(double(w.limit) * (std::ceil(double(span) / double(w.window)) + extra));
}

} // namespace

std::int64_t admissionBound(const AlgorithmConfig &config, Micros span)
{
    struct Bound {
        Micros span;
        std::int64_t operator()(const TokenBucketConfig &c) const
        {
            return burstPlusRate(c.capacity, c.refill, span);
        }
        std::int64_t operator()(const GcraConfig &c) const
        {
            return burstPlusRate(c.burst, c.rate, span);
        }
        std::int64_t operator()(const LeakyBucketConfig &c) const
        {
            return burstPlusRate(c.queue + 1, c.rate, span); // one in service, `queue` waiting
        }
        // An aligned window admits `limit`; an interval straddles one boundary more. Calendar
        // windows vary in length: as many as the shortest of them fit.
        std::int64_t operator()(const FixedWindowConfig &c) const
        {
            if (c.calendar)
                return windowsTouched(WindowLimit{c.limit, c.calendar->shortest()}, span, 1);
            return windowsTouched(c, span, 1);
        }
        std::int64_t operator()(const SlidingWindowCounterConfig &c) const
        {
            return windowsTouched(c, span, 1);
        }
        // Any trailing window holds at most `limit`.
        std::int64_t operator()(const SlidingWindowLogConfig &c) const
        {
            return windowsTouched(c, span, 0);
        }
    };
    return std::visit(Bound{span}, config);
}

} // namespace qs::limiter
