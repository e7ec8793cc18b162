#include "model/monitor/readbudget.h"

#include <algorithm>
#include <limits>

namespace qs {

ReadBudget::ReadBudget(qint64 perSecond) : m_perSecond(std::max<qint64>(0, perSecond))
{
    m_config.limit = m_perSecond;
    m_config.window = limiter::kMicrosPerSecond;
}

void ReadBudget::setPerSecond(qint64 perSecond)
{
    const bool hadBudget = m_perSecond != 0;
    m_perSecond = std::max<qint64>(0, perSecond);
    m_config.limit = m_perSecond;
    // Without a budget nothing was logged: a new one starts empty. Otherwise the last second
    // keeps counting, its newest entries up to the new limit (a log holds no more than that).
    if (!hadBudget || m_perSecond == 0) {
        m_state = {};
        return;
    }
    if (qint64(m_state.size()) > m_perSecond)
        m_state.head = m_state.stamps.size() - size_t(m_perSecond);
}

qint64 ReadBudget::available(qint64 nowUs) const
{
    if (m_perSecond == 0)
        return std::numeric_limits<qint64>::max();
    return std::max<qint64>(0, limiter::peek(m_config, m_state, nowUs).remaining);
}

qint64 ReadBudget::take(qint64 wanted, qint64 nowUs)
{
    if (m_perSecond == 0)
        return wanted;
    const qint64 granted = std::min(wanted, available(nowUs));
    if (granted > 0)
        limiter::decide(m_config, m_state, nowUs, granted);
    return granted;
}

} // namespace qs
