#pragma once
// What the monitor's integration tests share: a synchronous admin connection that writes keys
// the way each system writes them and reads INFO, and a monitor whose snapshots are collected.
#include "model/monitor/quotamonitor.h"
#include "model/policy/policyreader.h"
#include "tests/support/eventloopwait.h"
#include "tests/support/redisprocess.h"

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace qs::test {

// A plain hiredis connection for the test's own writes and checks (the test thread may block).
class Admin {
public:
    explicit Admin(int port, const char *user = nullptr, const char *password = nullptr);
    ~Admin();
    Admin(const Admin &) = delete;
    Admin &operator=(const Admin &) = delete;

    // One command; the reply as text (status, bulk, integer, or "ERR…" for errors).
    std::string run(std::vector<std::string> argv);
    // Many commands in one pipeline (bulk writes); false on any error reply.
    bool pipeline(const std::vector<std::vector<std::string>> &commands);
    qint64 serverTimeUs();
    // Keys written for windows aligned on the clock (a fixed window, Kong's and envoy's minute
    // counters) belong to an earlier window once the clock passes its end, and then read as gone
    // or fresh. When less than `marginUs` of the current `windowUs` is left on the server's
    // clock, sleeps until the next window has begun, so that a test's keys are read in theirs.
    void waitForRoomInWindow(qint64 windowUs, qint64 marginUs);
    // INFO commandstats as command -> calls.
    std::map<std::string, qint64> commandCalls();
    // SCAN cursor COUNT count: the next cursor.
    std::string nextScanCursor(const std::string &cursor, int count);

private:
    redisContext *m_c = nullptr;
};

inline Policy policyOrFail(const QByteArray &yaml)
{
    const PolicyReadResult r = readPolicy(yaml, QStringLiteral("monitor-test.yaml"));
    for (const Diagnostic &d : r.diagnostics)
        EXPECT_NE(d.severity, Diagnostic::Severity::Error) << d.toString().toStdString();
    return r.policy;
}

inline MonitorOptions monitorOptions(int port)
{
    MonitorOptions o;
    o.connection.port = quint16(port);
    o.connection.reconnectMinMs = 50;
    o.connection.reconnectMaxMs = 200;
    o.intervalMs = 200;
    o.hotKeyCount = 1000;
    return o;
}

// Collects every snapshot a monitor publishes.
struct Snapshots {
    template <class Monitor> // QuotaMonitor or ClusterMonitor
    explicit Snapshots(Monitor &monitor)
    {
        QObject::connect(
            &monitor, &Monitor::refreshed, [this](const MonitorSnapshot &s) { all.push_back(s); });
    }
    const MonitorSnapshot &last() const { return all.back(); }
    // Waits for a snapshot that satisfies `ok`, newer than the ones seen so far.
    template <class Predicate>
    const MonitorSnapshot *waitFor(Predicate ok, int ms = 8000)
    {
        const size_t from = all.size();
        const MonitorSnapshot *found = nullptr;
        waitUntil(
            [&] {
                for (size_t i = from; i < all.size() && !found; ++i)
                    if (ok(all[i]))
                        found = &all[i];
                return found != nullptr;
            },
            ms);
        return found;
    }
    std::deque<MonitorSnapshot> all; // a deque: the pointers waitFor() returns stay valid
};

inline const HotKey *keyIn(const MonitorSnapshot &s, const QByteArray &key)
{
    for (const HotKey &h : s.hotKeys)
        if (h.key == key)
            return &h;
    return nullptr;
}

inline const RouteStatus *routeIn(const MonitorSnapshot &s, const QString &id)
{
    for (const RouteStatus &r : s.routes)
        if (r.id == id)
            return &r;
    return nullptr;
}

} // namespace qs::test
