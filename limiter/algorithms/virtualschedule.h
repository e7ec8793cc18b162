#pragma once
// The virtual-scheduling core shared by GCRA and the leaky bucket: one integer, the theoretical
// arrival time (TAT) at which the backlog of admitted work has drained. Each unit of cost adds
// `interval` µs of backlog; a request is admitted while the backlog it leaves is at most
// `slots * interval`. Integer arithmetic only, so the Lua twin is exact by construction.
#include "limiter/algorithms/decision.h"

#include <algorithm>
#include <cstdint>

namespace qs::limiter::detail {

struct Schedule {
    Micros interval = 1; // µs of backlog per unit of cost
    std::int64_t slots = 1; // backlog units that may be outstanding at once
};

struct ScheduleStep {
    Decision decision;
    Micros start = 0; // when the request's first unit would be served (shaping delay = start-now)
};

inline ScheduleStep schedule(const Schedule &s, Micros &tat, Micros now, std::int64_t cost)
{
    ScheduleStep step;
    Decision &d = step.decision;
    d.limit = s.slots;
    d.window = s.slots * s.interval;
    const Micros capacity = s.slots * s.interval;
    const Micros base = std::max(tat, now);
    const Micros next = base + cost * s.interval;
    Micros backlog = base - now;
    if (cost > s.slots) {
        d.reason = Reason::CostExceedsLimit;
    } else if (next - now <= capacity) {
        tat = next;
        backlog = next - now;
        d.allowed = true;
        step.start = base;
    } else {
        d.reason = Reason::LimitExceeded;
        d.retryAfter = next - capacity - now;
    }
    d.remaining = std::max<std::int64_t>(0, (capacity - backlog) / s.interval);
    d.resetAfter = backlog;
    return step;
}

inline Quota peekSchedule(const Schedule &s, Micros tat, Micros now)
{
    const Micros backlog = std::max<Micros>(0, tat - now);
    const Micros capacity = s.slots * s.interval;
    return Quota{
        s.slots, std::max<std::int64_t>(0, (capacity - backlog) / s.interval), capacity, backlog};
}

} // namespace qs::limiter::detail
