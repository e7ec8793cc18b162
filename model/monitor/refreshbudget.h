#pragma once
// What a monitor may send. Three bounds: the promise to the server (ReadBudget: no more than N
// commands in any second), each refresh's share of it split between SCANs and reads, and the
// in-flight window (commands sent and not answered yet).
#include "model/monitor/readbudget.h"

#include <QtGlobal>

#include <limits>

namespace qs {

class RefreshBudget {
public:
    static constexpr qint64 kMaxInFlight = 16'384;

    // perSecond 0: no budget (benchmarks, a replica of one's own); only the window bounds.
    void reset(qint64 perSecond);
    void setPerSecond(qint64 perSecond); // what the last second took still counts
    bool unlimited() const { return m_log.perSecond() == 0; }
    // What the log allows per second: the budget less the in-flight window (inFlightWindow()).
    qint64 perSecond() const { return m_log.perSecond(); }
    qint64 available(qint64 nowUs) const;
    void spend(qint64 commands, qint64 nowUs);
    // A refresh's worth of the budget at this interval.
    qint64 perRefresh(int intervalMs) const;

    // A refresh's shares: scans a fifth (half while `discovering`, none unless `scanning`) plus
    // what the last refresh carried over, up to `oneScan`; reads the rest less `overhead`.
    void beginRefresh(
        qint64 perRefresh, bool scanning, bool discovering, qint64 overhead, qint64 oneScan);
    bool mayScan(qint64 cost, qint64 nowUs) const;
    void takeScan(qint64 cost, qint64 nowUs);
    bool mayRead(qint64 commands, qint64 nowUs) const;
    void takeRead(qint64 commands, qint64 nowUs);
    qint64 readsLeft() const { return m_readsLeft; }
    void scansNeedNoMore(); // every pass is done: the scans' share goes to reads
    void readsNeedNoMore(); // every planned key is read: the reads' share may scan
    // The refresh is over; `stillScanning`: what the scans left is carried to the next.
    void endRefresh(bool stillScanning);

    // The in-flight window.
    qint64 inFlightWindow() const;
    void sent();
    void answered() { --m_outstanding; }
    bool windowAllows(qint64 commands) const;
    bool windowHalfDrained() const { return m_outstanding <= inFlightWindow() / 2; }
    qint64 peakInFlight() const { return m_peak; }

private:
    qint64 m_configured = 0; // what the user set
    ReadBudget m_log{0};
    qint64 m_scansLeft = 0, m_readsLeft = 0;
    qint64 m_scanCarry = 0; // scan share a refresh left for the next (scanning goes on)
    qint64 m_outstanding = 0, m_peak = 0;
};

} // namespace qs
