#pragma once
// One refresh's reads, in order: the hot keys (the hottest first, so that they win when even
// they do not all fit), then keys never read, then the long tail from where the last refresh
// stopped. Keys, not positions: a key that expires meanwhile moves the others in the table.
#include "model/monitor/keytable.h"

#include <QByteArray>

#include <vector>

namespace qs {

class ReadPlan {
public:
    // At most `cap` keys; none that refresh `refresh` read already (as soon as a SCAN found
    // them); the long tail only `withTail`.
    void build(const KeyTable &keys, quint32 refresh, size_t cap, bool withTail);
    void append(const QByteArray &key) { m_keys.push_back(key); }
    void clear();

    bool done() const { return m_next >= m_keys.size(); }
    size_t size() const { return m_keys.size(); }
    const QByteArray &next() const { return m_keys[m_next]; }
    void advance() { ++m_next; }

private:
    std::vector<QByteArray> m_keys;
    size_t m_next = 0;
};

} // namespace qs
