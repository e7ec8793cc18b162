#include "limiter/algorithms/fixedwindow.h"

#include "limiter/algorithms/arithmetic.h"

namespace qs::limiter {

using detail::alignedStart;

namespace {

// The count that applies at time t (t never before the stored window).
std::int64_t countAt(const FixedWindowState &s, Micros start)
{
    return s.windowStart == start ? s.count : 0;
}

} // namespace

Decision decide(const FixedWindowConfig &c, FixedWindowState &s, Micros now, std::int64_t cost)
{
    Decision d;
    d.limit = c.limit;
    d.window = c.window;
    const Micros t = detail::notBefore(now, s.windowStart);
    const Micros start = alignedStart(t, c.window);
    std::int64_t count = countAt(s, start);
    const Micros untilNext = start + c.window - now;
    if (cost > c.limit) {
        d.reason = Reason::CostExceedsLimit;
    } else if (count + cost <= c.limit) {
        count += cost;
        s.windowStart = start;
        s.count = count;
        d.allowed = true;
    } else {
        d.reason = Reason::LimitExceeded;
        d.retryAfter = untilNext;
    }
    d.remaining = c.limit - count;
    d.resetAfter = count == 0 ? 0 : untilNext;
    return d;
}

Quota peek(const FixedWindowConfig &c, const FixedWindowState &s, Micros now)
{
    const Micros t = detail::notBefore(now, s.windowStart);
    const Micros start = alignedStart(t, c.window);
    const std::int64_t count = countAt(s, start);
    return Quota{c.limit, c.limit - count, c.window, count == 0 ? 0 : start + c.window - now};
}

bool isFresh(const FixedWindowConfig &c, const FixedWindowState &s, Micros now)
{
    return countAt(s, alignedStart(detail::notBefore(now, s.windowStart), c.window)) == 0;
}

} // namespace qs::limiter
