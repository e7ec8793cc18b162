#pragma once
// The monitor on one server or a Redis Cluster, whichever the seeds lead to. It asks the first
// seed that answers for CLUSTER SLOTS: a single server gets one QuotaMonitor, passed through;
// a cluster gets one QuotaMonitor per master (or per master's replica, readReplicas), each
// SCANning and reading its own node. A node's keyspace is its slots, so every key is read from
// the node that serves its slot. The read budget is split evenly across the nodes; their
// snapshots are merged once per interval — keys, throttled and per-second metrics summed, hot
// keys merged — and a node that is down shows as such while the others are read on. The map
// is asked for again every few seconds: a failover or a new master rebuilds the node monitors.
//
// Keys that move in a slot migration answer MOVED to the node that SCANned them: they show as
// unreadable until that node's next SCAN pass forgets them and the new owner's finds them.
#include "model/monitor/quotamonitor.h"
#include "model/policy/policy.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <memory>
#include <vector>

namespace qs {

class ClusterMonitor : public QObject {
    Q_OBJECT
public:
    explicit ClusterMonitor(const Policy &policy, QObject *parent = nullptr);
    ~ClusterMonitor() override;

    void start(const MonitorOptions &options);
    void stop();

    // The connection that asks for the slot map: its states are the first connection's.
    const RespClient &client() const { return m_discovery; }
    bool isCluster() const { return m_cluster; }
    // What QuotaMonitor offers the Monitor tab, over every node: the budget is split, the key
    // rows are all nodes' rows, the history is the merged snapshots (a single server's own),
    // and a reset goes to the node that serves the key's slot.
    void setBudgetPerSecond(qint64 perSecond);
    void setReadOnly(bool readOnly);
    std::vector<KeyRow> keyRows() const;
    const std::deque<MonitorSnapshot> &history() const;
    void resetKey(const QByteArray &key, RespClient::Callback done);
    // The first connection failed and another seed is about to be tried.
    bool tryingAnotherSeed() const { return m_nextSeedPending; }
    int nodeCount() const { return int(m_nodes.size()); }

signals:
    void refreshed(const qs::MonitorSnapshot &snapshot);

private:
    struct Node {
        QString host;
        quint16 port = 0;
        bool replica = false;
        std::unique_ptr<QuotaMonitor> monitor;
        std::optional<MonitorSnapshot> last;
    };
    using Address = QPair<QString, quint16>;

    void openNextSeed();
    void open(const Address &at);
    void discoveryLost();
    void askForSlots();
    void onSlots(const RespValue &reply);
    void build(const QList<Address> &nodes, bool cluster);
    void adoptMoved(int route, const QByteArray &key, const QString &host, quint16 port);
    MonitorOptions nodeOptions(const Address &at, bool replica) const;
    void publish();
    MonitorSnapshot merged() const;

    Policy m_policy;
    MonitorOptions m_options;
    QList<Address> m_seeds;
    int m_seedIndex = 0;
    Address m_target; // where the map is asked for
    RespClient m_discovery;
    bool m_cluster = false;
    bool m_everAnswered = false;
    bool m_nextSeedPending = false;
    QList<Address> m_current; // the nodes being monitored, in the first slot map's order
    std::vector<Node> m_nodes;
    std::vector<qint16> m_slotNode; // a cluster's slot -> index into m_nodes (-1: none)
    std::deque<MonitorSnapshot> m_history; // merged, a cluster's only
    bool m_readOnly = true;
    bool m_slotsAskedAgain = false; // a redirect asked for the slot map; it is on its way
    QTimer m_publish, m_rediscover;
};

} // namespace qs
