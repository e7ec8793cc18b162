#pragma once
// The monitor's engine room, headless: it finds a policy's keys in a live Redis with SCAN, reads
// them in pipelined batches within a read budget, decodes them with each route's layout and
// publishes a snapshot per refresh — routes (keys seen, throttled now, allowed/denied per
// second) and the hottest keys. It sends read commands only; the one write, resetKey(), is
// refused unless the caller has turned read-only off (docs/monitoring.md).
//
// Tiered refresh: keys near or over their limit are read every refresh, the rest are rotated
// through within what the budget leaves, new keys first. A refresh that has not finished when
// the next is due is not doubled up: the next one waits.
//
// This class drives the refresh; its parts live apart: how each route is read and decoded
// (MonitoredRoute, ScanGroup), the keys found (KeyTable), the refresh's reads in order
// (ReadPlan), what may be sent (RefreshBudget) and what a SCAN costs the server (ScanCost).
#include "model/monitor/keytable.h"
#include "model/monitor/monitoredroute.h"
#include "model/monitor/monitorsnapshot.h"
#include "model/monitor/readplan.h"
#include "model/monitor/refreshbudget.h"
#include "model/monitor/respclient.h"
#include "model/monitor/scancost.h"
#include "model/policy/policy.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <deque>
#include <vector>

namespace qs {

struct MonitorOptions {
    RespClient::Options connection;
    qint64 budgetPerSecond = 5000; // commands per second, any second; 0: no budget
    int intervalMs = 1000;
    int scanCount = 1000; // SCAN's COUNT hint
    int hotKeyCount = 20; // how many of the hottest keys a snapshot lists
    int historySeconds = 600; // per-route history kept in memory
    // Redis Cluster (ClusterMonitor): further seeds tried after connection.host:port, and
    // whether to read each master's replica instead of the master.
    QList<QPair<QString, quint16>> moreSeeds;
    bool readReplicas = false;
    // Set by ClusterMonitor on each node's monitor: a key that answers MOVED or ASK lives on
    // another node now (a reshard), whose own walk finds it; this node forgets it.
    bool clusterNode = false;
};

class QuotaMonitor : public QObject {
    Q_OBJECT
public:
    explicit QuotaMonitor(const Policy &policy, QObject *parent = nullptr);
    ~QuotaMonitor() override;

    void start(const MonitorOptions &options);
    void stop();

    const RespClient &client() const { return m_client; }
    // A new budget from now on (the UI's budget field); the last second's commands still count.
    void setBudgetPerSecond(qint64 perSecond);
    qint64 trackedKeys() const { return m_keys.size(); }
    // The most commands this monitor has had in flight at once since start(): the in-flight
    // window bounds it, with or without a budget.
    qint64 peakInFlight() const { return m_budget.peakInFlight(); }
    // The last snapshots, oldest first, at most historySeconds worth.
    const std::deque<MonitorSnapshot> &history() const { return m_history; }
    // Every key read at least once, as of now (all of them: the hot-keys table's rows).
    std::vector<KeyRow> keyRows() const;

    // The one write: deletes a key, which resets that client's quota. Refused (an error to
    // `done`) while read-only, the default.
    void setReadOnly(bool readOnly) { m_readOnly = readOnly; }
    void resetKey(const QByteArray &key, RespClient::Callback done);

    // Cluster nodes: a key another node's read was redirected here for (movedTo), tracked now
    // rather than when this node's next SCAN pass finds it.
    void adopt(int route, const QByteArray &key);
    // Cluster nodes: a key another node's SCAN found lives there now (a reshard moved it before
    // this node read it again); forgotten here, so that no snapshot counts it twice.
    // True when the key was tracked here (and is forgotten now).
    bool forgetMoved(const QByteArray &key)
    {
        if (!m_keys.contains(key))
            return false;
        m_keys.forget(key);
        return true;
    }
    // What a refresh ending now would report (ClusterMonitor: a node's last snapshot after it
    // forgot keys another node found).
    MonitorSnapshot currentSnapshot() const { return snapshot(); }

signals:
    void refreshed(const qs::MonitorSnapshot &snapshot);
    // clusterNode: a read of `key` answered MOVED or ASK to host:port; forgotten here.
    void movedTo(int route, const QByteArray &key, const QString &host, quint16 port);
    // clusterNode: keys this node's SCAN found that it did not track.
    void found(const std::vector<QByteArray> &keys);

private:
    void refresh();
    void onTime(const RespValue &reply);
    void sendScan(size_t group);
    void scanAnswered(size_t group, const RespValue &reply); // tracks, reads, chains the next
    qint64 scanCostNow() const; // what one SCAN counts for in the budget now
    int scanCountNow() const;
    bool pastDeadline() const; // 90% of the interval is over: nothing new goes out
    // The one guard against stale replies: `handle` runs only if the refresh that made it is
    // still the current one (stop() and an abandoned refresh move the generation on).
    template <class Handle>
    auto ofThisRefresh(Handle handle);
    // Sends a command of this refresh: counted in flight, its reply handled by `handle`
    // (void(const RespValue &)) unless the refresh was abandoned meanwhile.
    template <class Handle>
    void send(const Command &argv, Handle handle);
    void afterReply(); // the in-flight window's drain, then replied()
    void measureCosts(); // SCAN's and INFO's cost in reads (ScanCost)
    void sendMetrics();
    void sendReads(); // plans this refresh's reads and starts them
    void continueReads(); // sends as much of the plan as the budget allows now
    void readKey(qint32 index);
    void onRead(const QByteArray &key, const QList<RespValue> &replies);
    bool redirected(const QByteArray &key, const QList<RespValue> &replies);
    void expect(int replies) { m_pending += replies; }
    void replied();
    void finishRefresh();
    MonitorSnapshot snapshot() const;
    bool walkedOnce() const; // every scan group has completed a pass
    bool scansDone() const; // every scan group's current pass is done
    bool scanInFlight() const;
    qint64 steadyMicros() const { return m_steady.nsecsElapsed() / 1000; }
    qint64 serverNowUs() const;
    bool connected() const { return m_client.state() == RespClient::State::Connected; }
    // Keeps a refused command's error for the snapshot (not those of a dropped connection).
    void noteRefusal(const QByteArray &command, const RespValue &reply);

    MonitorOptions m_options;
    RespClient m_client;
    QTimer m_timer;
    QElapsedTimer m_steady;
    std::vector<MonitoredRoute> m_routes; // decoding
    std::vector<ScanGroup> m_groups;
    KeyTable m_keys;
    ReadPlan m_plan;
    RefreshBudget m_budget;
    ScanCost m_scanCost;
    std::deque<MonitorSnapshot> m_history;
    qint64 m_serverTimeUs = 0, m_serverTimeAtSteady = 0;
    QString m_lastError;
    // The refresh under way.
    quint64 m_generation = 0; // replies of an abandoned refresh carry an older one
    quint64 m_refreshes = 0;
    bool m_refreshing = false;
    qint64 m_refreshStartUs = 0;
    int m_pending = 0; // replies (and plan continuations) it still waits for
    qint64 m_keysRead = 0;
    int m_metricsRoutes = 0; // routes whose per-second metrics are read each refresh
    bool m_readsWaitForWindow = false; // the plan goes on when the in-flight window drains
    bool m_continuationArmed = false; // a timer will carry the plan on
    bool m_readOnly = true;
};

} // namespace qs
