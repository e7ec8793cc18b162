#pragma once
// The keys a monitor tracks: found by SCAN, read by the refresh's plan, forgotten when gone.
// Compact rows in a vector with a key index; forgetting a key moves the last row into its place,
// so a position is only good until the next forget() — hold keys across event-loop turns.
#include "model/monitor/keyquota.h"
#include "model/monitor/monitorsnapshot.h"

#include <QByteArray>
#include <QHash>

#include <vector>

namespace qs {

class KeyTable {
public:
    struct Entry {
        QByteArray key;
        qint32 route = 0;
        bool everRead = false;
        quint32 readIn = 0; // the refresh that last sent its read
        KeyQuota::Status status = KeyQuota::Status::Read;
        bool throttled = false;
        qint64 limit = 0, remaining = 0, resetAfterMs = 0, ttlMs = -1;
        qint64 changedAtUs = 0, readAtUs = 0; // server time

        KeyQuota quota() const; // without `why`, which the table keeps apart for the few it has
        // Near or over the limit (within 10% of it, or throttled): read every refresh.
        bool hot() const;
    };

    qint32 size() const { return qint32(m_keys.size()); }
    bool contains(const QByteArray &key) const { return m_index.contains(key); }
    qint32 indexOf(const QByteArray &key) const; // -1: not tracked
    const Entry &at(qint32 i) const { return m_keys[size_t(i)]; }
    Entry &at(qint32 i) { return m_keys[size_t(i)]; }

    qint32 track(int route, const QByteArray &key); // its index
    void forget(const QByteArray &key);
    // A read's result, kept at the server time it was read; unreadable keys keep their reason.
    void store(qint32 index, const KeyQuota &quota, qint64 nowUs);
    QString why(const QByteArray &key) const { return m_why.value(key); }

    // Where the long tail's rotation goes on at the next refresh (ReadPlan).
    qint32 tailStart() const { return m_tailStart; }
    void tailReadUpTo(qint32 index) { m_tailStart = (index + 1) % std::max<qint32>(1, size()); }

    // Every key read at least once, as the hot-keys table shows it.
    std::vector<KeyRow> rows() const;
    // Fills the snapshot's per-route counts (its routes listed already, in route order), the
    // sample of unreadable keys and the `hotKeyCount` hottest keys.
    void summarize(MonitorSnapshot &snapshot, int hotKeyCount, int unreadableSample) const;

private:
    std::vector<Entry> m_keys;
    QHash<QByteArray, qint32> m_index; // key -> position in m_keys
    QHash<QByteArray, QString> m_why; // unreadable keys only
    qint32 m_tailStart = 0;
};

} // namespace qs
