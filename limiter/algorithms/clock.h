#pragma once
#include "limiter/algorithms/time.h"

#include <atomic>

namespace qs::limiter {

class Clock {
public:
    virtual ~Clock() = default;
    virtual Micros now() const = 0;
};

// Realtime µs since the Unix epoch: the same time base as Redis TIME.
class SystemClock final : public Clock {
public:
    Micros now() const override;
};

// Time that moves only when told: simulations and tests. Safe to read and advance from
// several threads.
class ManualClock final : public Clock {
public:
    explicit ManualClock(Micros start = 0) : m_now(start) { }
    Micros now() const override { return m_now.load(std::memory_order_acquire); }
    void set(Micros t) { m_now.store(t, std::memory_order_release); }
    void advance(Micros by) { m_now.fetch_add(by, std::memory_order_acq_rel); }

private:
    std::atomic<Micros> m_now;
};

} // namespace qs::limiter
