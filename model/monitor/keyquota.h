#pragma once
// What the monitor knows about one client's quota after reading its key: the same four numbers
// a gateway's RateLimit headers carry, or why the key could not be read.
#include <QString>

#include <algorithm>

namespace qs {

struct KeyQuota {
    // The TTL was not read: the layout's value says when it resets (Quota Studio's own keys,
    // whose TTL the scripts set to exactly that), so the PTTL would double the reads.
    static constexpr qint64 kTtlNotRead = -3;

    enum class Status : quint8 {
        Read, // the numbers below hold
        Unreadable, // the key exists but is not what the route's layout says: see `why`
        Gone, // the key no longer exists, or belongs to a window that has ended
    };
    Status status = Status::Unreadable;
    QString why; // Unreadable: what is wrong with the key ("a list, not a string", …)
    qint64 limit = 0;
    qint64 remaining = 0;
    qint64 resetAfterMs = 0; // until the quota is whole again
    qint64 ttlMs = kTtlNotRead; // the key's PTTL (-1: none), or kTtlNotRead
    bool throttled = false; // a request of the route's cost would be refused now

    static KeyQuota unreadable(QString why)
    {
        KeyQuota q;
        q.why = std::move(why);
        return q;
    }
    static KeyQuota gone()
    {
        KeyQuota q;
        q.status = Status::Gone;
        return q;
    }
};

// The hot-key order of every snapshot, a node's or a cluster's: throttled first, then by the
// share of the limit in use, then the longest wait. Over a KeyQuota or anything with its four
// fields (the monitor's key table sorts a million entries without making a KeyQuota of each).
template <class Quota>
bool hotter(const Quota &a, const Quota &b)
{
    if (a.throttled != b.throttled)
        return a.throttled;
    const qint64 ua = (a.limit - a.remaining) * std::max<qint64>(1, b.limit);
    const qint64 ub = (b.limit - b.remaining) * std::max<qint64>(1, a.limit);
    if (ua != ub)
        return ua > ub;
    return a.resetAfterMs > b.resetAfterMs;
}

} // namespace qs
