#include "limiter/algorithms/slidingwindowcounter.h"

#include "limiter/algorithms/arithmetic.h"

namespace qs::limiter {

using detail::alignedStart;

namespace {

struct Counts {
    Micros start = 0;
    std::int64_t previous = 0;
    std::int64_t current = 0;
};

// The two counters as seen from the window that contains t.
Counts countsAt(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s, Micros t)
{
    Counts k;
    k.start = alignedStart(t, c.window);
    if (s.windowStart == k.start) {
        k.previous = s.previous;
        k.current = s.current;
    } else if (s.windowStart != kNoTime && s.windowStart == k.start - c.window) {
        k.previous = s.current;
    }
    return k;
}

double estimateAt(const SlidingWindowCounterConfig &c, const Counts &k, Micros t)
{
    return slidingEstimate(k.previous, k.current, t - k.start, c.window);
}

bool admissibleAt(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s, Micros t,
    std::int64_t cost)
{
    return estimateAt(c, countsAt(c, s, t), t) + double(cost) <= double(c.limit);
}

// Earliest time at which `cost` fits, from the closed form, then nudged past rounding.
Micros earliestAdmission(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s,
    const Counts &k, std::int64_t cost)
{
    const double w = double(c.window);
    Micros t;
    if (k.current + cost <= c.limit) {
        // The previous window's weight must decay until the rest fits.
        const double room = double(c.limit - cost - k.current);
        const Micros e = detail::ceilMicros(w - room * w / double(k.previous));
        t = k.start + std::min(e, c.window);
    } else {
        // Wait for the current window to become the previous one and decay.
        const double room = double(c.limit - cost);
        const Micros e = detail::ceilMicros(w - room * w / double(k.current));
        t = k.start + c.window + std::min(e, c.window);
    }
    for (int i = 0; i < 8 && !admissibleAt(c, s, t, cost); ++i)
        ++t;
    return t;
}

Micros resetAfter(const SlidingWindowCounterConfig &c, const Counts &k, Micros now)
{
    if (k.current > 0)
        return k.start + 2 * c.window - now;
    if (k.previous > 0)
        return k.start + c.window - now;
    return 0;
}

} // namespace

double slidingEstimate(std::int64_t previous, std::int64_t current, Micros elapsed, Micros window)
{
    return double(previous) * (double(window - elapsed) / double(window)) + double(current);
}

Decision decide(const SlidingWindowCounterConfig &c, SlidingWindowCounterState &s, Micros now,
    std::int64_t cost)
{
    Decision d;
    d.limit = c.limit;
    d.window = c.window;
    const Micros t = detail::notBefore(now, s.windowStart);
    Counts k = countsAt(c, s, t);
    double estimate = estimateAt(c, k, t);
    if (cost > c.limit) {
        d.reason = Reason::CostExceedsLimit;
    } else if (estimate + double(cost) <= double(c.limit)) {
        k.current += cost;
        estimate += double(cost);
        s.windowStart = k.start;
        s.current = std::int32_t(k.current);
        s.previous = std::int32_t(k.previous);
        d.allowed = true;
    } else {
        d.reason = Reason::LimitExceeded;
        d.retryAfter = earliestAdmission(c, s, k, cost) - now;
    }
    d.remaining = detail::floorCount(double(c.limit) - estimate);
    d.resetAfter = resetAfter(c, k, now);
    return d;
}

Quota peek(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s, Micros now)
{
    const Micros t = detail::notBefore(now, s.windowStart);
    const Counts k = countsAt(c, s, t);
    return Quota{c.limit, detail::floorCount(double(c.limit) - estimateAt(c, k, t)), c.window,
        resetAfter(c, k, now)};
}

bool isFresh(const SlidingWindowCounterConfig &c, const SlidingWindowCounterState &s, Micros now)
{
    const Counts k = countsAt(c, s, detail::notBefore(now, s.windowStart));
    return k.current == 0 && k.previous == 0;
}

} // namespace qs::limiter
