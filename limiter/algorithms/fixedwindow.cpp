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

WindowBounds FixedWindowConfig::windowAt(Micros t) const
{
    if (calendar)
        return calendar->at(t);
    const Micros start = alignedStart(t, window);
    return {start, start + window};
}

Decision decide(const FixedWindowConfig &c, FixedWindowState &s, Micros now, std::int64_t cost)
{
    Decision d;
    d.limit = c.limit;
    const WindowBounds w = c.windowAt(detail::notBefore(now, s.windowStart));
    d.window = w.end - w.start;
    const Micros start = w.start;
    std::int64_t count = countAt(s, start);
    const Micros untilNext = w.end - now;
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
    const WindowBounds w = c.windowAt(detail::notBefore(now, s.windowStart));
    const std::int64_t count = countAt(s, w.start);
    return Quota{c.limit, c.limit - count, w.end - w.start, count == 0 ? 0 : w.end - now};
}

bool isFresh(const FixedWindowConfig &c, const FixedWindowState &s, Micros now)
{
    return countAt(s, c.windowAt(detail::notBefore(now, s.windowStart)).start) == 0;
}

} // namespace qs::limiter
