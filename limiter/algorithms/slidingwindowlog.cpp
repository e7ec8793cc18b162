#include "limiter/algorithms/slidingwindowlog.h"

#include <algorithm>

namespace qs::limiter {

namespace {

Micros latest(const SlidingWindowLogState &s)
{
    return s.size() == 0 ? kNoTime : s.stamps.back();
}

// First live entry at time t: an entry stamped e counts while e > t - window.
std::size_t firstLive(const SlidingWindowLogConfig &c, const SlidingWindowLogState &s, Micros t)
{
    const auto begin = s.stamps.begin() + std::ptrdiff_t(s.head);
    return std::size_t(std::upper_bound(begin, s.stamps.end(), t - c.window) - s.stamps.begin());
}

void dropExpired(SlidingWindowLogState &s, std::size_t live)
{
    s.head = live;
    // Compact once half the buffer is dead, so memory stays proportional to the live entries.
    if (s.head > 0 && s.head * 2 >= s.stamps.size()) {
        s.stamps.erase(s.stamps.begin(), s.stamps.begin() + std::ptrdiff_t(s.head));
        s.head = 0;
    }
}

Micros resetAfter(const SlidingWindowLogConfig &c, const SlidingWindowLogState &s, Micros now)
{
    return s.size() == 0 ? 0 : s.stamps.back() + c.window - now;
}

} // namespace

Decision decide(
    const SlidingWindowLogConfig &c, SlidingWindowLogState &s, Micros now, std::int64_t cost)
{
    Decision d;
    d.limit = c.limit;
    d.window = c.window;
    const Micros t = std::max(now, latest(s));
    dropExpired(s, firstLive(c, s, t));
    const auto count = std::int64_t(s.size());
    if (cost > c.limit) {
        d.reason = Reason::CostExceedsLimit;
    } else if (count + cost <= c.limit) {
        s.stamps.insert(s.stamps.end(), std::size_t(cost), t);
        d.allowed = true;
    } else {
        // Enough of the oldest entries must expire to make room for `cost`.
        const std::size_t mustExpire = std::size_t(count + cost - c.limit);
        d.reason = Reason::LimitExceeded;
        d.retryAfter = s.stamps[s.head + mustExpire - 1] + c.window - now;
    }
    d.remaining = c.limit - std::int64_t(s.size());
    d.resetAfter = resetAfter(c, s, now);
    return d;
}

Quota peek(const SlidingWindowLogConfig &c, const SlidingWindowLogState &s, Micros now)
{
    const Micros t = std::max(now, latest(s));
    const auto live = std::int64_t(s.stamps.size() - firstLive(c, s, t));
    return Quota{
        c.limit, c.limit - live, c.window, live == 0 ? 0 : s.stamps.back() + c.window - now};
}

bool isFresh(const SlidingWindowLogConfig &c, const SlidingWindowLogState &s, Micros now)
{
    return firstLive(c, s, std::max(now, latest(s))) == s.stamps.size();
}

} // namespace qs::limiter
