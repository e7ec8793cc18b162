#include "model/monitor/clustermonitor.h"

#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keyslot.h"

#include <algorithm>

namespace qs {

namespace {

constexpr int kRediscoverMs = 5000; // how often the slot map is asked for again

// The node a CLUSTER SLOTS entry names ([host, port, id, …]); "" or "?" is the host asked.
// The monitor's reply, as limiter::parseClusterSlots() reads replies: one slot map parser for
// the backend and the monitor.
struct RespView {
    static bool isArray(const RespValue &v) { return v.type == RespValue::Type::Array; }
    static std::size_t size(const RespValue &v) { return std::size_t(v.elements.size()); }
    static const RespValue &at(const RespValue &v, std::size_t i)
    {
        return v.elements[qsizetype(i)];
    }
    static bool isInteger(const RespValue &v) { return v.type == RespValue::Type::Integer; }
    static long long integer(const RespValue &v) { return v.integer; }
    static bool isString(const RespValue &v) { return v.type == RespValue::Type::String; }
    static std::string_view text(const RespValue &v)
    {
        return {v.text.constData(), std::size_t(v.text.size())};
    }
};

QPair<QString, quint16> addressOf(const limiter::RedisAddress &a)
{
    return {QString::fromStdString(a.host), quint16(a.port)};
}

void addTo(std::optional<double> &sum, const std::optional<double> &value)
{
    if (value)
        sum = sum.value_or(0) + *value;
}

} // namespace

ClusterMonitor::ClusterMonitor(const Policy &policy, QObject *parent)
    : QObject(parent), m_policy(policy)
{
    connect(&m_publish, &QTimer::timeout, this, &ClusterMonitor::publish);
    connect(&m_rediscover, &QTimer::timeout, this, &ClusterMonitor::askForSlots);
    connect(&m_discovery, &RespClient::stateChanged, this, [this](RespClient::State state) {
        if (state == RespClient::State::Connected)
            askForSlots();
        else if (state == RespClient::State::Unreachable)
            discoveryLost();
    });
}

// The node that answered for the map is gone: the next seed before settling for retries of
// this one, and once a cluster is known, its other nodes too (a failed-over master never comes
// back on its own). From the event loop, not inside the client's own signal.
void ClusterMonitor::discoveryLost()
{
    if (!m_everAnswered) {
        if (m_seedIndex + 1 >= m_seeds.size())
            return; // every seed tried: the client's own retries go on with the last
        ++m_seedIndex;
        m_nextSeedPending = true;
        QTimer::singleShot(0, this, &ClusterMonitor::openNextSeed);
        return;
    }
    if (!m_cluster)
        return; // one server: the client reconnects to it by itself
    QList<Address> candidates = m_seeds;
    for (const Address &a : m_current)
        if (!candidates.contains(a))
            candidates.append(a);
    const Address now = m_target;
    const qsizetype at = candidates.indexOf(now);
    m_target = candidates[(at + 1) % candidates.size()];
    QTimer::singleShot(m_options.connection.reconnectMinMs, this, [this] { open(m_target); });
}

ClusterMonitor::~ClusterMonitor() = default;

void ClusterMonitor::start(const MonitorOptions &options)
{
    stop();
    m_options = options;
    m_seeds = {{options.connection.host, options.connection.port}};
    m_seeds += options.moreSeeds;
    m_seedIndex = 0;
    m_everAnswered = false;
    openNextSeed();
    m_publish.start(std::max(50, options.intervalMs));
    m_rediscover.start(kRediscoverMs);
}

void ClusterMonitor::stop()
{
    m_publish.stop();
    m_rediscover.stop();
    m_discovery.close();
    for (Node &n : m_nodes)
        n.monitor->stop();
    m_nodes.clear();
    m_current.clear();
}

void ClusterMonitor::openNextSeed()
{
    m_nextSeedPending = false;
    open(m_seeds[m_seedIndex]);
}

void ClusterMonitor::open(const Address &at)
{
    m_target = at;
    RespClient::Options o = m_options.connection;
    o.host = at.first;
    o.port = at.second;
    o.clientName = "quota-studio-monitor-map";
    m_discovery.open(o);
}

void ClusterMonitor::askForSlots()
{
    if (m_discovery.state() == RespClient::State::Connected)
        m_discovery.send({"CLUSTER", "SLOTS"}, [this](const RespValue &r) { onSlots(r); });
}

void ClusterMonitor::onSlots(const RespValue &reply)
{
    const QString asked = m_target.first;
    if (reply.isError()) {
        // "cluster support disabled": one server. NOPERM (a read-only ACL user without
        // +cluster|slots) is taken as one server too, rather than monitoring nothing; on a
        // cluster its reads then answer MOVED and show as unreadable (docs/monitoring.md).
        const bool dropped = m_discovery.state() != RespClient::State::Connected;
        if (!m_everAnswered && !dropped) {
            m_everAnswered = true;
            build({m_target}, false);
        }
        return; // a dropped connection: the next rediscovery asks again
    }
    if (reply.type != RespValue::Type::Array)
        return;
    // One node per master (or its first replica), in slot order.
    const std::vector<limiter::SlotRange> ranges
        = limiter::parseClusterSlots(reply, asked.toStdString(), RespView{});
    if (ranges.empty())
        return;
    QList<Address> nodes;
    std::vector<qint16> slotNode(limiter::kClusterSlots, -1);
    for (const limiter::SlotRange &range : ranges) {
        const Address pick
            = addressOf(m_options.readReplicas && !range.replicas.empty() ? range.replicas.front()
                                                                          : range.master);
        if (!nodes.contains(pick))
            nodes.append(pick);
        for (int slot = range.first; slot <= range.last; ++slot)
            slotNode[size_t(slot)] = qint16(nodes.indexOf(pick));
    }
    m_everAnswered = true;
    // The same masters in another order (a resharded range moves where each first appears)
    // keep their monitors, and with them every key found so far: only a changed set rebuilds.
    const bool sameNodes = m_cluster && nodes.size() == m_current.size()
        && std::all_of(nodes.cbegin(), nodes.cend(),
            [this](const Address &a) { return m_current.contains(a); });
    if (sameNodes)
        for (qint16 &node : slotNode)
            if (node >= 0)
                node = qint16(m_current.indexOf(nodes[node]));
    m_slotNode = std::move(slotNode);
    if (!nodes.isEmpty() && !sameNodes)
        build(nodes, true);
}

void ClusterMonitor::build(const QList<Address> &nodes, bool cluster)
{
    for (Node &n : m_nodes)
        n.monitor->stop();
    m_nodes.clear();
    m_current = nodes;
    m_cluster = cluster;
    m_history.clear();
    for (const Address &a : nodes) {
        Node n;
        n.host = a.first;
        n.port = a.second;
        n.replica = cluster && m_options.readReplicas;
        n.monitor = std::make_unique<QuotaMonitor>(m_policy);
        n.monitor->setReadOnly(m_readOnly);
        const MonitorOptions o = nodeOptions(a, n.replica);
        const size_t index = m_nodes.size();
        connect(n.monitor.get(), &QuotaMonitor::refreshed, this,
            [this, index, cluster](const MonitorSnapshot &s) {
                if (!cluster) {
                    emit refreshed(s); // one server: its snapshots as they are
                    return;
                }
                if (index < m_nodes.size())
                    m_nodes[index].last = s;
            });
        connect(n.monitor.get(), &QuotaMonitor::movedTo, this,
            [this](int route, const QByteArray &key, const QString &host, quint16 port) {
                adoptMoved(route, key, host, port);
            });
        // A key lives on one master: found by one node's SCAN, it is no other node's (a reshard
        // moved it before the old node read it again and met MOVED).
        connect(n.monitor.get(), &QuotaMonitor::found, this,
            [this, index](const std::vector<QByteArray> &keys) {
                for (size_t other = 0; other < m_nodes.size(); ++other) {
                    if (other == index)
                        continue;
                    bool forgot = false;
                    for (const QByteArray &key : keys)
                        forgot = m_nodes[other].monitor->forgetMoved(key) || forgot;
                    // Its last refresh still counts them, and the finder's next one will: the
                    // merged snapshot would count them twice until that node refreshes again.
                    if (forgot && m_nodes[other].last)
                        m_nodes[other].last = m_nodes[other].monitor->currentSnapshot();
                }
            });
        m_nodes.push_back(std::move(n));
        m_nodes.back().monitor->start(o);
    }
    if (!cluster)
        m_slotNode.clear();
    if (!cluster)
        m_publish.stop();
    else if (!m_publish.isActive())
        m_publish.start(std::max(50, m_options.intervalMs));
}

void ClusterMonitor::adoptMoved(int route, const QByteArray &key, const QString &host, quint16 port)
{
    // The redirect names a master; reading replicas, its replica is not known by that address
    // and the key waits for the replica's next SCAN pass. Either way the slot map is stale.
    for (Node &n : m_nodes)
        if (n.host == host && n.port == port && !n.replica)
            n.monitor->adopt(route, key);
    if (!m_slotsAskedAgain) {
        m_slotsAskedAgain = true; // once per reshard's burst of redirects, not once per key
        QTimer::singleShot(200, this, [this] {
            m_slotsAskedAgain = false;
            askForSlots();
        });
    }
}

MonitorOptions ClusterMonitor::nodeOptions(const Address &at, bool replica) const
{
    MonitorOptions o = m_options;
    o.connection.host = at.first;
    o.connection.port = at.second;
    o.connection.clusterReplicaReads = replica;
    o.clusterNode = true;
    const qint64 n = std::max<qint64>(1, m_current.size());
    if (o.budgetPerSecond > 0) // split evenly, rounded up: each node gets at least one
        o.budgetPerSecond = (o.budgetPerSecond + n - 1) / n;
    return o;
}

void ClusterMonitor::setBudgetPerSecond(qint64 perSecond)
{
    m_options.budgetPerSecond = perSecond;
    for (Node &n : m_nodes)
        n.monitor->setBudgetPerSecond(nodeOptions({n.host, n.port}, n.replica).budgetPerSecond);
}

void ClusterMonitor::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    for (Node &n : m_nodes)
        n.monitor->setReadOnly(readOnly);
}

std::vector<KeyRow> ClusterMonitor::keyRows() const
{
    std::vector<KeyRow> rows;
    for (const Node &n : m_nodes) {
        std::vector<KeyRow> more = n.monitor->keyRows();
        rows.insert(
            rows.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return rows;
}

const std::deque<MonitorSnapshot> &ClusterMonitor::history() const
{
    static const std::deque<MonitorSnapshot> none;
    if (!m_cluster)
        return m_nodes.empty() ? none : m_nodes.front().monitor->history();
    return m_history;
}

void ClusterMonitor::resetKey(const QByteArray &key, RespClient::Callback done)
{
    qint16 node = m_cluster ? -1 : 0;
    if (m_cluster && !m_slotNode.empty())
        node = m_slotNode[limiter::keySlot(std::string_view(key.constData(), size_t(key.size())))];
    if (node < 0 || size_t(node) >= m_nodes.size() || m_nodes[size_t(node)].replica) {
        if (done)
            done(RespValue::error(m_options.readReplicas
                    ? "reading replicas: a reset must go to a master; connect without replicas"
                    : "no node serves this key's slot now"));
        return;
    }
    m_nodes[size_t(node)].monitor->resetKey(key, std::move(done));
}

void ClusterMonitor::publish()
{
    if (!m_cluster || m_nodes.empty())
        return;
    m_history.push_back(merged());
    const size_t keep
        = size_t(std::max(1, m_options.historySeconds * 1000 / std::max(50, m_options.intervalMs)));
    while (m_history.size() > keep)
        m_history.pop_front();
    emit refreshed(m_history.back());
}

MonitorSnapshot ClusterMonitor::merged() const
{
    MonitorSnapshot s;
    s.scanComplete = true;
    int connected = 0;
    QStringList down;
    for (const Node &n : m_nodes) {
        NodeStatus status;
        status.address = QStringLiteral("%1:%2").arg(n.host).arg(n.port);
        status.replica = n.replica;
        if (!n.last) {
            status.state = RespClient::State::Connecting;
            status.stateText = tr("connecting");
            s.scanComplete = false;
            s.nodes.append(status);
            continue;
        }
        const MonitorSnapshot &p = *n.last;
        status.state = p.state;
        status.stateText = p.stateText;
        if (p.state == RespClient::State::Connected)
            ++connected;
        else
            down << QStringLiteral("%1 %2").arg(status.address, p.stateText);
        s.serverTimeUs = std::max(s.serverTimeUs, p.serverTimeUs);
        s.commandsSent += p.commandsSent;
        s.keysRead += p.keysRead;
        s.scanComplete = s.scanComplete && p.scanComplete;
        if (s.lastError.isEmpty() && !p.lastError.isEmpty())
            s.lastError = status.address + QStringLiteral(": ") + p.lastError;
        if (s.routes.isEmpty())
            for (const RouteStatus &r : p.routes)
                s.routes.append(RouteStatus{r.id, r.problem, 0, 0, 0, {}, {}, {}});
        for (qsizetype i = 0; i < p.routes.size() && i < s.routes.size(); ++i) {
            RouteStatus &r = s.routes[i];
            r.keys += p.routes[i].keys;
            r.throttled += p.routes[i].throttled;
            r.unreadable += p.routes[i].unreadable;
            status.keys += p.routes[i].keys;
            addTo(r.allowedPerSecond, p.routes[i].allowedPerSecond);
            addTo(r.deniedPerSecond, p.routes[i].deniedPerSecond);
            // Each node holds the seconds' hashes of its slots: the plans' shares add up too.
            for (const PlanRate &rate : p.routes[i].plans) {
                auto at = std::find_if(r.plans.begin(), r.plans.end(),
                    [&](const PlanRate &x) { return x.plan == rate.plan; });
                if (at == r.plans.end())
                    r.plans.append(rate);
                else {
                    at->allowed += rate.allowed;
                    at->denied += rate.denied;
                }
            }
        }
        s.hotKeys += p.hotKeys;
        for (const UnreadableKey &u : p.unreadable)
            if (s.unreadable.size() < 20)
                s.unreadable.append(u);
        s.nodes.append(status);
    }
    std::sort(s.hotKeys.begin(), s.hotKeys.end(),
        [](const HotKey &a, const HotKey &b) { return hotter(a.quota, b.quota); });
    if (s.hotKeys.size() > m_options.hotKeyCount)
        s.hotKeys.resize(std::max(0, m_options.hotKeyCount));
    s.state = connected > 0    ? RespClient::State::Connected
        : m_nodes.front().last ? m_nodes.front().last->state
                               : RespClient::State::Connecting;
    const QString masters = m_options.readReplicas ? tr("replicas") : tr("masters");
    s.stateText = down.isEmpty() ? tr("cluster: %1 %2 connected").arg(connected).arg(masters)
                                 : tr("cluster: %1 of %2 %3 connected; %4")
                                       .arg(connected)
                                       .arg(m_nodes.size())
                                       .arg(masters, down.join(QStringLiteral("; ")));
    return s;
}

} // namespace qs
