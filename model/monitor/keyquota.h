#pragma once
// What the monitor knows about one client's quota after reading its key: the same four numbers
// a gateway's RateLimit headers carry, or why the key could not be read.
#include <QString>

namespace qs {

struct KeyQuota {
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
    qint64 ttlMs = -1; // the key's PTTL: -1 none, -2 missing
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

} // namespace qs
