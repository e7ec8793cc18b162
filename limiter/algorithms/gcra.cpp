#include "limiter/algorithms/gcra.h"

#include "limiter/algorithms/virtualschedule.h"

namespace qs::limiter {

namespace {
detail::Schedule scheduleOf(const GcraConfig &c)
{
    return {c.rate.intervalCeil(), c.burst};
}
} // namespace

std::optional<std::string> GcraConfig::validate() const
{
    if (auto problem = rate.validate())
        return "rate: " + *problem;
    if (burst <= 0)
        return "burst must be at least 1 (got " + std::to_string(burst) + ")";
    if (burst > kMaxCount)
        return "burst " + std::to_string(burst) + " is absurd; use at most "
            + std::to_string(kMaxCount);
    if (double(burst) * double(rate.intervalCeil()) > double(100 * 366 * kMicrosPerDay))
        return "burst / rate spans more than a century; lower the burst or raise the rate";
    return std::nullopt;
}

Decision decide(const GcraConfig &c, GcraState &s, Micros now, std::int64_t cost)
{
    return detail::schedule(scheduleOf(c), s.tat, now, cost).decision;
}

Quota peek(const GcraConfig &c, const GcraState &s, Micros now)
{
    return detail::peekSchedule(scheduleOf(c), s.tat, now);
}

bool isFresh(const GcraConfig &, const GcraState &s, Micros now)
{
    return s.tat <= now;
}

} // namespace qs::limiter
