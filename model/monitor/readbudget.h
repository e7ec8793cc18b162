#pragma once
// The monitor's promise to the server it reads: never more than N commands in any one second.
// Kept with the limiter's own sliding window log — the algorithm whose bound holds over every
// window, not only aligned ones — one unit per command.
#include "limiter/algorithms/slidingwindowlog.h"

#include <QtGlobal>

namespace qs {

class ReadBudget {
public:
    // perSecond 0: no budget (benchmarks, a replica of one's own).
    explicit ReadBudget(qint64 perSecond = 5000);

    qint64 perSecond() const { return m_perSecond; }
    // Changes the budget; what was taken in the last second still counts against the new one.
    void setPerSecond(qint64 perSecond);
    // Takes up to `wanted` commands at `nowUs` (a steady clock) and says how many were granted.
    qint64 take(qint64 wanted, qint64 nowUs);
    // What take() would grant now.
    qint64 available(qint64 nowUs) const;

private:
    qint64 m_perSecond;
    limiter::SlidingWindowLogConfig m_config;
    limiter::SlidingWindowLogState m_state;
};

} // namespace qs
