#include "model/monitor/readplan.h"

#include <algorithm>

namespace qs {

void ReadPlan::build(const KeyTable &keys, quint32 refresh, size_t cap, bool withTail)
{
    std::vector<qint32> hot, fresh;
    for (qint32 i = 0; i < keys.size(); ++i) {
        const KeyTable::Entry &e = keys.at(i);
        if (e.readIn == refresh)
            continue;
        if (e.hot())
            hot.push_back(i);
        else if (!e.everRead)
            fresh.push_back(i);
    }
    std::sort(hot.begin(), hot.end(), [&keys](qint32 a, qint32 b) {
        const KeyTable::Entry &x = keys.at(a), &y = keys.at(b);
        return x.remaining * std::max<qint64>(1, y.limit)
            < y.remaining * std::max<qint64>(1, x.limit);
    });
    clear();
    for (const auto *list : {&hot, &fresh})
        for (qint32 i : *list)
            if (m_keys.size() < cap)
                m_keys.push_back(keys.at(i).key);
    const qint32 n = withTail ? keys.size() : 0;
    for (qint32 step = 0; step < n && m_keys.size() < cap; ++step) {
        const KeyTable::Entry &e = keys.at((keys.tailStart() + step) % n);
        if (e.everRead && !e.hot() && e.readIn != refresh)
            m_keys.push_back(e.key);
    }
}

void ReadPlan::clear()
{
    m_keys.clear();
    m_next = 0;
}

} // namespace qs
