#include "limiter/redis/routemetrics.h"

#include "limiter/redis/keylayout.h"

#include <algorithm>

namespace qs::limiter {

void RouteMetrics::count(
    std::string_view keyPrefix, std::int64_t second, bool allowed, std::string_view plan)
{
    // Newest first: the entry of this second is almost always among the last few.
    auto it = std::find_if(m_entries.rbegin(), m_entries.rend(),
        [&](const Entry &e) { return e.second == second && e.keyPrefix == keyPrefix; });
    if (it == m_entries.rend()) {
        m_entries.push_back(Entry{std::string(keyPrefix), second, 0, 0, {}});
        it = m_entries.rbegin();
        m_oldest = std::min(m_oldest, second);
    }
    ++(allowed ? it->allowed : it->denied);
    if (plan.empty())
        return;
    auto p = std::find_if(
        it->plans.begin(), it->plans.end(), [&](const PlanCount &c) { return c.plan == plan; });
    if (p == it->plans.end())
        p = it->plans.insert(it->plans.end(), PlanCount{std::string(plan), 0, 0});
    ++(allowed ? p->allowed : p->denied);
}

std::vector<RouteMetrics::Count> RouteMetrics::take(std::int64_t before)
{
    std::vector<Count> out;
    m_oldest = std::numeric_limits<std::int64_t>::max();
    // (The predicate copies, never moves: remove_if's predicate must not change an element.)
    std::erase_if(m_entries, [&](const Entry &e) {
        if (e.second < before) {
            out.push_back(
                Count{keylayout::metricsKey(e.keyPrefix, e.second), e.allowed, e.denied, e.plans});
            return true;
        }
        m_oldest = std::min(m_oldest, e.second);
        return false;
    });
    return out;
}

} // namespace qs::limiter
