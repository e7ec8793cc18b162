#include "limiter/algorithms/leakybucket.h"

#include "limiter/algorithms/virtualschedule.h"

namespace qs::limiter {

namespace {
// One unit in service plus `queue` waiting: the same admission in both modes, so switching
// police <-> shape changes only when requests are forwarded, never which are admitted.
detail::Schedule scheduleOf(const LeakyBucketConfig &c)
{
    return {c.rate.intervalCeil(), c.queue + 1};
}
} // namespace

std::optional<std::string> LeakyBucketConfig::validate() const
{
    if (auto problem = rate.validate())
        return "rate: " + *problem;
    if (queue < 0)
        return "queue must be 0 or more (got " + std::to_string(queue) + ")";
    if (queue > kMaxCount)
        return "queue " + std::to_string(queue) + " is absurd; use at most "
            + std::to_string(kMaxCount);
    if (double(queue + 1) * double(rate.intervalCeil()) > double(100 * 366 * kMicrosPerDay))
        return "queue / rate spans more than a century; shorten the queue or raise the rate";
    return std::nullopt;
}

Decision decide(const LeakyBucketConfig &c, LeakyBucketState &s, Micros now, std::int64_t cost)
{
    const auto step = detail::schedule(scheduleOf(c), s.nextFree, now, cost);
    Decision d = step.decision;
    if (d.allowed && c.mode == LeakMode::Shape)
        d.delay = step.start - now;
    return d;
}

Quota peek(const LeakyBucketConfig &c, const LeakyBucketState &s, Micros now)
{
    return detail::peekSchedule(scheduleOf(c), s.nextFree, now);
}

bool isFresh(const LeakyBucketConfig &, const LeakyBucketState &s, Micros now)
{
    return s.nextFree <= now;
}

} // namespace qs::limiter
