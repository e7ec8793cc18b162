#include "model/monitor/refreshbudget.h"

#include <algorithm>

namespace qs {

namespace {

// Commands in flight at once. Without a budget a fixed window: bounded work however large the
// keyspace. With one, a twentieth of it: what the server processes in any second was either
// in flight when the second began or sent during it, so the sliding log allows budget − window
// and the server's own counters never see more than the budget.
qint64 windowFor(qint64 budget)
{
    return budget == 0 ? RefreshBudget::kMaxInFlight
                       : std::clamp<qint64>(budget / 20, 1, RefreshBudget::kMaxInFlight);
}

qint64 logBudget(qint64 budget)
{
    return budget == 0 ? 0 : std::max<qint64>(1, budget - windowFor(budget));
}

} // namespace

void RefreshBudget::reset(qint64 perSecond)
{
    m_configured = perSecond;
    m_log = ReadBudget(logBudget(perSecond));
    m_outstanding = m_peak = 0;
    m_scanCarry = 0;
}

void RefreshBudget::setPerSecond(qint64 perSecond)
{
    m_configured = perSecond;
    m_log.setPerSecond(logBudget(perSecond));
}

qint64 RefreshBudget::available(qint64 nowUs) const
{
    return unlimited() ? std::numeric_limits<qint64>::max() : m_log.available(nowUs);
}

void RefreshBudget::spend(qint64 commands, qint64 nowUs)
{
    if (!unlimited())
        m_log.take(commands, nowUs);
}

qint64 RefreshBudget::perRefresh(int intervalMs) const
{
    return unlimited() ? std::numeric_limits<int>::max()
                       : std::max<qint64>(1, perSecond() * intervalMs / 1000);
}

void RefreshBudget::beginRefresh(
    qint64 perRefresh, bool scanning, bool discovering, qint64 overhead, qint64 oneScan)
{
    // A SCAN that costs more than one refresh's share goes out every few refreshes: what a
    // share left unspent is carried over, up to one SCAN.
    m_scansLeft
        = scanning ? perRefresh / (discovering ? 2 : 5) + std::min(m_scanCarry, oneScan) : 0;
    m_scanCarry = 0;
    // Reads get the rest, for this refresh as a whole: spent as the sliding second frees up,
    // they would otherwise take every unit the moment it frees and starve the scans.
    m_readsLeft = std::max<qint64>(0, perRefresh - overhead - m_scansLeft);
}

bool RefreshBudget::mayScan(qint64 cost, qint64 nowUs) const
{
    return m_scansLeft >= cost && available(nowUs) >= cost;
}

void RefreshBudget::takeScan(qint64 cost, qint64 nowUs)
{
    spend(cost, nowUs);
    m_scansLeft -= cost;
}

bool RefreshBudget::mayRead(qint64 commands, qint64 nowUs) const
{
    return unlimited() || (m_readsLeft >= commands && available(nowUs) >= commands);
}

void RefreshBudget::takeRead(qint64 commands, qint64 nowUs)
{
    spend(commands, nowUs);
    m_readsLeft -= commands;
}

void RefreshBudget::scansNeedNoMore()
{
    m_readsLeft += m_scansLeft;
    m_scansLeft = 0;
}

void RefreshBudget::readsNeedNoMore()
{
    if (m_readsLeft <= 0)
        return;
    m_scansLeft += m_readsLeft;
    m_readsLeft = 0;
}

void RefreshBudget::endRefresh(bool stillScanning)
{
    if (stillScanning)
        m_scanCarry = std::max<qint64>(0, m_scansLeft);
}

qint64 RefreshBudget::inFlightWindow() const
{
    return windowFor(m_configured);
}

void RefreshBudget::sent()
{
    m_peak = std::max(m_peak, ++m_outstanding);
}

bool RefreshBudget::windowAllows(qint64 commands) const
{
    return m_outstanding + commands <= inFlightWindow();
}

} // namespace qs
