#include "model/monitor/keytable.h"

#include <algorithm>

namespace qs {

KeyQuota KeyTable::Entry::quota() const
{
    KeyQuota q;
    q.status = status;
    q.throttled = throttled;
    q.limit = limit;
    q.remaining = remaining;
    q.resetAfterMs = resetAfterMs;
    q.ttlMs = ttlMs;
    return q;
}

bool KeyTable::Entry::hot() const
{
    return everRead && status == KeyQuota::Status::Read && (throttled || remaining * 10 <= limit);
}

qint32 KeyTable::indexOf(const QByteArray &key) const
{
    const auto found = m_index.constFind(key);
    return found == m_index.cend() ? -1 : *found;
}

qint32 KeyTable::track(int route, const QByteArray &key)
{
    const qint32 index = size();
    m_index.insert(key, index);
    Entry e;
    e.key = key;
    e.route = route;
    m_keys.push_back(std::move(e));
    return index;
}

void KeyTable::forget(const QByteArray &key)
{
    const auto found = m_index.find(key);
    if (found == m_index.end())
        return;
    const size_t at = size_t(*found);
    m_index.erase(found);
    m_why.remove(key);
    if (at + 1 != m_keys.size()) {
        m_keys[at] = std::move(m_keys.back());
        m_index[m_keys[at].key] = qint32(at);
    }
    m_keys.pop_back();
    if (m_tailStart >= size())
        m_tailStart = 0;
}

void KeyTable::store(qint32 index, const KeyQuota &q, qint64 nowUs)
{
    Entry &e = at(index);
    if (!e.everRead || q.remaining != e.remaining || q.limit != e.limit || q.status != e.status)
        e.changedAtUs = nowUs;
    e.readAtUs = nowUs;
    e.everRead = true;
    e.status = q.status;
    e.throttled = q.throttled;
    e.limit = q.limit;
    e.remaining = q.remaining;
    e.resetAfterMs = q.resetAfterMs;
    e.ttlMs = q.ttlMs;
    if (q.status == KeyQuota::Status::Unreadable)
        m_why.insert(e.key, q.why);
    else
        m_why.remove(e.key);
}

std::vector<KeyRow> KeyTable::rows() const
{
    std::vector<KeyRow> rows;
    rows.reserve(m_keys.size());
    for (const Entry &e : m_keys) {
        if (!e.everRead)
            continue;
        rows.push_back({e.key, e.route, e.status, e.throttled, e.limit, e.remaining, e.resetAfterMs,
            e.ttlMs, e.changedAtUs, e.readAtUs});
    }
    return rows;
}

void KeyTable::summarize(MonitorSnapshot &s, int hotKeyCount, int unreadableSample) const
{
    std::vector<const Entry *> candidates;
    for (const Entry &e : m_keys) {
        RouteStatus &r = s.routes[e.route];
        ++r.keys;
        if (e.status == KeyQuota::Status::Unreadable) {
            ++r.unreadable;
            if (s.unreadable.size() < unreadableSample)
                s.unreadable.append({r.id, e.key, m_why.value(e.key)});
        } else if (e.everRead) {
            r.throttled += e.throttled ? 1 : 0;
            candidates.push_back(&e);
        }
    }
    const size_t top = std::min(candidates.size(), size_t(std::max(0, hotKeyCount)));
    std::partial_sort(candidates.begin(), candidates.begin() + long(top), candidates.end(),
        [](const Entry *a, const Entry *b) { return hotter(*a, *b); });
    for (size_t i = 0; i < top; ++i) {
        const Entry &e = *candidates[i];
        s.hotKeys.append({s.routes[e.route].id, e.key, e.quota(), e.readAtUs});
    }
}

} // namespace qs
