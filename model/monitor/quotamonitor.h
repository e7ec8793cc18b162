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
#include "model/monitor/keyquota.h"
#include "model/monitor/layoutdecoder.h"
#include "model/monitor/readbudget.h"
#include "model/monitor/respclient.h"
#include "model/policy/policy.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
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

// Calls and CPU time (µs) the server counted for some commands (INFO commandstats).
struct CommandCost {
    qint64 calls = 0, usec = 0;
};

struct RouteStatus {
    QString id;
    QString problem; // not empty: this route cannot be monitored, and why
    qint64 keys = 0; // live keys seen
    qint64 throttled = 0; // keys whose next request would be refused now
    qint64 unreadable = 0;
    std::optional<double> allowedPerSecond, deniedPerSecond; // where the deployment counts
};

struct HotKey {
    QString route;
    QByteArray key;
    KeyQuota quota;
    qint64 readAtUs = 0; // the server's time when the figures were read (µs since the epoch)
};

struct UnreadableKey {
    QString route;
    QByteArray key;
    QString why;
};

// One read key as the hot-keys table shows it: a flat copy, so that a view can hold a refresh's
// rows while the monitor goes on reading.
struct KeyRow {
    QByteArray key;
    qint32 route = 0; // index into the snapshot's routes
    KeyQuota::Status status = KeyQuota::Status::Read;
    bool throttled = false;
    qint64 limit = 0, remaining = 0, resetAfterMs = 0, ttlMs = KeyQuota::kTtlNotRead;
    qint64 changedAtUs = 0; // server time of the last read that saw other numbers
    qint64 readAtUs = 0; // server time of the last read
};

// One node of a Redis Cluster as the monitor sees it (ClusterMonitor).
struct NodeStatus {
    QString address; // host:port
    bool replica = false; // read from a replica (MonitorOptions::readReplicas)
    RespClient::State state = RespClient::State::Disconnected;
    QString stateText;
    qint64 keys = 0; // keys it holds that the monitor tracks
};

struct MonitorSnapshot {
    qint64 serverTimeUs = 0; // Redis' TIME when the refresh began; 0 when not connected
    RespClient::State state = RespClient::State::Disconnected;
    QString stateText;
    QList<RouteStatus> routes;
    QList<HotKey> hotKeys; // throttled first, then by the share of the limit used
    QList<UnreadableKey> unreadable; // a sample (at most 20)
    quint64 commandsSent = 0; // since start(), the handshake included
    qint64 keysRead = 0; // in this refresh
    bool scanComplete = false; // every route's SCAN has walked the whole keyspace once
    QString lastError; // the server refused a command (an ACL without SCAN, …); empty: none
    QList<NodeStatus> nodes; // a cluster's nodes, one per master; empty on a single server
    qint64 scanCost = 0; // what one SCAN counts for in the budget, as measured (commands)
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
    qint64 trackedKeys() const { return qint64(m_keys.size()); }
    // The most commands this monitor has had in flight at once since start(): the in-flight
    // window bounds it, with or without a budget.
    qint64 peakInFlight() const { return m_peakOutstanding; }
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

signals:
    void refreshed(const qs::MonitorSnapshot &snapshot);
    // clusterNode: a read of `key` answered MOVED or ASK to host:port; forgotten here.
    void movedTo(int route, const QByteArray &key, const QString &host, quint16 port);

private:
    struct RouteWatch {
        QString id;
        QString problem;
        std::unique_ptr<LayoutDecoder> decoder;
        QByteArray metricsPrefix; // `<prefix>:<route>:~metrics:`; empty: not counted
        qint64 readCost = 1; // commands one key takes (the same for every key of a layout)
        std::optional<double> allowed, denied;
    };
    // Routes whose keys one SCAN MATCH finds (all routes on Quota Studio's own keys share the
    // prefix): the keyspace is walked once per pattern, not once per route.
    struct ScanGroup {
        QByteArray pattern;
        std::vector<int> routes; // the first whose layout accepts a key owns it
        QByteArray cursor = "0";
        bool scanning = false; // a SCAN is in flight
        bool passDone = false; // the current pass has reached cursor 0
        int passes = 0; // complete passes so far
    };
    struct Tracked {
        QByteArray key;
        qint32 route = 0;
        bool everRead = false;
        quint32 readIn = 0; // the refresh that last sent its read
        KeyQuota::Status status = KeyQuota::Status::Read;
        bool throttled = false;
        qint64 limit = 0, remaining = 0, resetAfterMs = 0, ttlMs = -1;
        qint64 changedAtUs = 0, readAtUs = 0; // server time

        // Everything but `why`, kept apart for the few it has.
        void store(const KeyQuota &q, qint64 nowUs);
        KeyQuota quota() const;
    };

    void watch(const Policy &policy, const Route &route); // a route's decoder, metrics, scan
    void joinScanGroup(const QByteArray &pattern, int route);
    void refresh();
    void onTime(const RespValue &reply);
    void sendScan(size_t group);
    void onScan(size_t group, const RespValue &reply);
    void scanAnswered(size_t group, const RespValue &reply); // tracks, reads, chains the next
    qint64 scanCost() const; // what one SCAN counts for in the budget
    int scanCountNow() const; // the COUNT a SCAN is sent with
    qint64 bucketsWalked(int count) const; // by a SCAN of that COUNT, as far as DBSIZE tells
    bool mayRead(qint64 commands) const; // within this refresh's read share and the budget
    bool windowAllows(qint64 commands) const; // within the in-flight window
    bool pastDeadline() const; // 90% of the interval is over: nothing new goes out
    // Sends a command of this refresh: counted in flight, its reply handled unless the refresh
    // was abandoned meanwhile.
    template <class Handle> // void(const RespValue &)
    void send(const Command &argv, Handle handle);
    void afterReply(); // the in-flight window's drain, then replied()
    void measureCosts(); // SCAN's and INFO's cost in reads, from INFO commandstats
    void sendMetrics();
    void sendReads(); // plans this refresh's reads and starts them
    void continueReads(); // sends as much of the plan as the budget allows now
    void readKey(qint32 index);
    void onRead(const QByteArray &key, const QList<RespValue> &replies);
    void track(int route, const QByteArray &key);
    void forget(const QByteArray &key);
    void expect(int replies) { m_pending += replies; }
    void replied();
    void finishRefresh();
    MonitorSnapshot snapshot() const;
    bool hot(const Tracked &t) const;
    qint64 steadyMicros() const { return m_steady.nsecsElapsed() / 1000; }
    // What the budget allows now; without a budget, without reading the clock.
    qint64 budgetAvailable() const;
    void spend(qint64 commands);
    qint64 serverNowUs() const;
    bool connected() const { return m_client.state() == RespClient::State::Connected; }
    // Keeps a refused command's error for the snapshot (not those of a dropped connection).
    void noteRefusal(const QByteArray &command, const RespValue &reply);

    MonitorOptions m_options;
    RespClient m_client;
    ReadBudget m_budget;
    QTimer m_timer;
    QElapsedTimer m_steady;
    std::vector<RouteWatch> m_routes;
    std::vector<ScanGroup> m_groups;
    std::vector<Tracked> m_keys;
    QHash<QByteArray, qint32> m_index; // key -> position in m_keys
    QHash<QByteArray, QString> m_why; // unreadable keys only
    std::deque<MonitorSnapshot> m_history;
    qint64 m_serverTimeUs = 0, m_serverTimeAtSteady = 0;
    QString m_lastError;
    qint64 m_refreshStartUs = 0;
    size_t m_rotation = 0; // where the long tail's rotation goes on
    std::vector<QByteArray> m_plan; // this refresh's reads, in order
    size_t m_planPos = 0;
    int m_pending = 0;
    quint64 m_generation = 0; // replies of an abandoned refresh carry an older one
    quint64 m_refreshes = 0;
    qint64 m_scanBudgetLeft = 0; // what scans may still spend of this refresh's budget
    qint64 m_readBudgetLeft = 0; // what reads may still spend of it
    int m_metricsRoutes = 0; // routes whose per-second metrics are read each refresh
    qint64 m_keysRead = 0;
    bool m_refreshing = false;
    bool m_readOnly = true;
    qint64 m_outstanding = 0; // commands sent and not answered yet
    qint64 m_peakOutstanding = 0;
    bool m_readsWaitForWindow = false; // the plan goes on when the in-flight window drains
    bool m_continuationArmed = false; // a timer will carry the plan on
    // What a SCAN and an INFO cost Redis, in reads (measureCosts()).
    struct CostSample {
        CommandCost scans, reads, info;
        CostSample minus(const CostSample &o) const
        {
            return {{scans.calls - o.scans.calls, scans.usec - o.scans.usec},
                {reads.calls - o.reads.calls, reads.usec - o.reads.usec},
                {info.calls - o.info.calls, info.usec - o.info.usec}};
        }
    };
    std::optional<CostSample> m_costSample;
    struct ScansSent {
        qint64 calls = 0, buckets = 0;
    } m_scansSent; // since the last cost sample
    double m_bucketCost = 1.0; // reads' worth of CPU per bucket a SCAN walks
    qint64 m_dbSize = -1; // DBSIZE at the last sample; -1: not known
    qint64 m_infoCost = 100;
    qint64 m_scanCarry = 0; // scan share a refresh left for the next (scanning goes on)
    qint64 m_costMeasuredAtUs = std::numeric_limits<qint64>::min() / 2;
    bool m_infoRefused = false;
};

} // namespace qs
