#include "model/monitor/quotamonitor.h"

#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keylayout.h"

#include <algorithm>
#include <limits>

namespace qs {

namespace {

constexpr int kRescanEveryRefreshes = 5; // a new SCAN pass at most every 5 refreshes
constexpr int kUnreadableSample = 20;
constexpr int kReadsPerTurn = 4000; // keys whose reads one turn of the event loop sends

} // namespace

QuotaMonitor::QuotaMonitor(const Policy &policy, QObject *parent) : QObject(parent)
{
    m_steady.start();
    for (const MonitoredTarget &target : monitoredTargets(policy)) {
        m_routes.push_back(MonitoredRoute::of(policy, target));
        m_metricsRoutes += m_routes.back().metricsPrefix.isEmpty() ? 0 : 1;
    }
    m_groups = ScanGroup::of(m_routes);
    connect(&m_timer, &QTimer::timeout, this, &QuotaMonitor::refresh);
    connect(&m_client, &RespClient::stateChanged, this, [this](RespClient::State state) {
        if (state == RespClient::State::Connected && !m_refreshing)
            refresh(); // the first figures as soon as there is a connection
    });
}

QuotaMonitor::~QuotaMonitor() = default;

void QuotaMonitor::start(const MonitorOptions &options)
{
    m_options = options;
    m_budget.reset(options.budgetPerSecond);
    m_scanCost = ScanCost(); // measured anew on this connection
    m_readsWaitForWindow = false;
    m_client.open(options.connection);
    m_timer.start(std::max(50, options.intervalMs));
}

void QuotaMonitor::setBudgetPerSecond(qint64 perSecond)
{
    m_options.budgetPerSecond = perSecond;
    m_budget.setPerSecond(perSecond);
}

void QuotaMonitor::stop()
{
    m_timer.stop();
    ++m_generation;
    m_refreshing = false;
    m_pending = 0;
    m_client.close();
}

qint64 QuotaMonitor::serverNowUs() const
{
    return m_serverTimeUs + (steadyMicros() - m_serverTimeAtSteady);
}

bool QuotaMonitor::walkedOnce() const
{
    return std::all_of(
        m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.passes > 0; });
}

bool QuotaMonitor::scansDone() const
{
    return std::all_of(
        m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.passDone; });
}

bool QuotaMonitor::scanInFlight() const
{
    return std::any_of(
        m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.scanning; });
}

void QuotaMonitor::refresh()
{
    const qint64 now = steadyMicros();
    const qint64 stuckAfterUs
        = qint64(3 * m_options.intervalMs + m_options.connection.readTimeoutMs) * 1000;
    if (m_refreshing && now - m_refreshStartUs < stuckAfterUs)
        return; // the last refresh is still being answered: do not pile up
    ++m_generation; // replies of an abandoned refresh are ignored from here on
    m_refreshing = false;
    m_pending = 0;
    for (ScanGroup &g : m_groups)
        g.scanning = false; // an abandoned refresh's SCAN will never be answered to us
    m_readsWaitForWindow = m_continuationArmed = false;
    m_plan.clear();
    if (!connected()) {
        // Nothing is sent while the connection is down: commands would queue and burst out on
        // reconnection. A SCAN pass resumes from its cursor once connected again (a cursor
        // stays valid; keys the server gained meanwhile are found by the next pass), rather
        // than walking a large keyspace from the start after every lost connection.
        finishRefresh();
        return;
    }
    if (m_budget.available(now) < 1)
        return; // not even TIME fits: the next refresh tries again
    m_budget.spend(1, now);
    m_refreshing = true;
    m_refreshStartUs = now;
    m_keysRead = 0;
    m_lastError.clear();
    ++m_refreshes;
    // Scans may take a fifth of the refresh's budget, half until the keyspace has been walked
    // once; reads the rest. Either gives what it does not need to the other.
    const bool scanning = !scansDone() || m_refreshes % kRescanEveryRefreshes == 0;
    m_budget.beginRefresh(m_budget.perRefresh(m_options.intervalMs), scanning, !walkedOnce(),
        1 + m_metricsRoutes /* TIME and the metrics reads */, scanCostNow());
    measureCosts(); // answered before TIME: this refresh's scans are charged what they cost
    send({"TIME"}, [this](const RespValue &reply) { onTime(reply); });
}

template <class Handle>
auto QuotaMonitor::ofThisRefresh(Handle handle)
{
    return [this, generation = m_generation, handle = std::move(handle)](auto &&...args) {
        if (generation == m_generation)
            handle(std::forward<decltype(args)>(args)...);
    };
}

template <class Handle>
void QuotaMonitor::send(const Command &argv, Handle handle)
{
    m_budget.sent();
    expect(1);
    // One callable per command, the handler inside it (not a std::function in a std::function:
    // a million reads made two million allocations of it).
    m_client.send(argv,
        [this, handle = ofThisRefresh([this, handle = std::move(handle)](const RespValue &reply) {
            handle(reply);
            afterReply();
        })](const RespValue &reply) {
            m_budget.answered(); // in flight whichever refresh sent it
            handle(reply);
        });
}

void QuotaMonitor::afterReply()
{
    // Reads held back by the in-flight window go on once half of it has drained: in batches,
    // not one command per reply.
    if (m_readsWaitForWindow && m_budget.windowHalfDrained()) {
        m_readsWaitForWindow = false;
        continueReads();
    }
    replied();
}

bool QuotaMonitor::pastDeadline() const
{
    // With a budget, 90% of the interval: what the budget holds back waits for the next
    // refresh. Without one, until 50 ms before the next: time left to the last replies.
    const qint64 intervalUs = qint64(m_options.intervalMs) * 1000;
    const qint64 cutUs = m_budget.unlimited() ? std::max(intervalUs * 9 / 10, intervalUs - 50'000)
                                              : intervalUs * 9 / 10;
    return steadyMicros() >= m_refreshStartUs + cutUs;
}

void QuotaMonitor::measureCosts()
{
    const qint64 cost = m_scanCost.infoCost() + 1;
    if (!m_scanCost.due(m_serverTimeUs) || m_budget.available(steadyMicros()) < cost)
        return;
    m_budget.spend(cost, steadyMicros());
    const ScanCost::Sent scans = m_scanCost.beginMeasuring(m_serverTimeUs);
    send({"DBSIZE"}, [this](const RespValue &reply) {
        if (reply.type == RespValue::Type::Integer)
            m_scanCost.dbSizeAnswered(reply.integer);
    });
    send({"INFO", "commandstats"}, [this, scans](const RespValue &reply) {
        if (reply.type == RespValue::Type::String)
            m_scanCost.infoAnswered(reply.text, scans);
        else if (reply.isError() && !reply.text.startsWith("LOADING"))
            m_scanCost.infoRefused();
    });
}

int QuotaMonitor::scanCountNow() const
{
    return m_scanCost.count(m_budget.perSecond(), m_options.scanCount);
}

qint64 QuotaMonitor::scanCostNow() const
{
    return m_scanCost.cost(scanCountNow());
}

void QuotaMonitor::noteRefusal(const QByteArray &command, const RespValue &reply)
{
    if (reply.isError() && connected())
        m_lastError = QStringLiteral("the server refused %1: %2")
                          .arg(QString::fromUtf8(command), QString::fromUtf8(reply.text.left(200)));
}

void QuotaMonitor::onTime(const RespValue &reply)
{
    noteRefusal("TIME", reply);
    if (reply.type != RespValue::Type::Array || reply.elements.size() != 2 || !connected())
        return;
    m_serverTimeUs
        = reply.elements[0].text.toLongLong() * 1'000'000 + reply.elements[1].text.toLongLong();
    m_serverTimeAtSteady = steadyMicros();
    sendMetrics();
    for (ScanGroup &group : m_groups)
        if (group.passDone && !group.scanning && m_refreshes % kRescanEveryRefreshes == 0) {
            group.passDone = false; // a new pass, to find new clients
            group.cursor = "0";
        }
    sendReads(); // scans first, then reads, as the budget allows
}

void QuotaMonitor::sendMetrics()
{
    const QByteArray second = QByteArray::number(m_serverTimeUs / 1'000'000 - 1);
    for (MonitoredRoute &r : m_routes) {
        if (r.metricsPrefix.isEmpty() || m_budget.available(steadyMicros()) < 1)
            continue;
        m_budget.spend(1, steadyMicros());
        namespace layout = limiter::keylayout;
        QList<QByteArray> command{"HMGET", r.metricsPrefix + second,
            QByteArray(layout::kAllowedField.data(), qsizetype(layout::kAllowedField.size())),
            QByteArray(layout::kDeniedField.data(), qsizetype(layout::kDeniedField.size()))};
        for (const QString &plan : r.plans)
            for (const std::string_view field : {layout::kAllowedField, layout::kDeniedField})
                command << QByteArray::fromStdString(layout::planField(field, plan.toStdString()));
        send(command, [&r](const RespValue &reply) {
            if (reply.type != RespValue::Type::Array
                || reply.elements.size() != 2 + 2 * r.plans.size())
                return;
            r.allowed = replyNumber(reply.elements[0]).value_or(0);
            r.denied = replyNumber(reply.elements[1]).value_or(0);
            r.planRates.clear();
            for (qsizetype p = 0; p < r.plans.size(); ++p)
                r.planRates.append({r.plans[p], replyNumber(reply.elements[2 + 2 * p]).value_or(0),
                    replyNumber(reply.elements[3 + 2 * p]).value_or(0)});
        });
    }
}

void QuotaMonitor::sendScan(size_t group)
{
    ScanGroup &g = m_groups[group];
    const qint64 cost = scanCostNow();
    if (!connected() || !m_budget.mayScan(cost, steadyMicros()))
        return;
    m_budget.takeScan(cost, steadyMicros());
    g.scanning = true;
    const int count = scanCountNow();
    m_scanCost.sent(count);
    send({"SCAN", g.cursor, "MATCH", g.pattern, "COUNT", QByteArray::number(count)},
        [this, group](const RespValue &reply) {
            m_groups[group].scanning = false;
            scanAnswered(group, reply);
        });
    // The chain waits for this SCAN: on the wire now, not after the replies of this turn of
    // the event loop have been handled (a pass over a million keys took 1.3x as long).
    m_client.flush();
}

void QuotaMonitor::scanAnswered(size_t group, const RespValue &reply)
{
    ScanGroup &g = m_groups[group];
    noteRefusal("SCAN", reply);
    if (reply.type != RespValue::Type::Array || reply.elements.size() != 2)
        return; // refused, or connection trouble: the pass goes on at the next refresh
    std::vector<qint32> found;
    for (const RespValue &k : reply.elements[1].elements) {
        if (m_keys.contains(k.text))
            continue;
        for (int route : g.routes)
            if (m_routes[size_t(route)].decoder->accepts(k.text)) {
                found.push_back(m_keys.track(route, k.text));
                break;
            }
    }
    if (m_options.clusterNode && !found.empty()) {
        std::vector<QByteArray> keys;
        keys.reserve(found.size());
        for (qint32 i : found)
            keys.push_back(m_keys.at(i).key);
        emit this->found(keys);
    }
    g.cursor = reply.elements[0].text;
    if (g.cursor == "0") {
        g.passDone = true;
        ++g.passes;
        if (scansDone())
            m_budget.scansNeedNoMore();
    } else if (!pastDeadline()) {
        sendScan(group); // chained within this refresh's share of the budget and its time
    }
    // New keys are read at once, while the next SCAN walks on: the round trips overlap. What
    // the budget or the in-flight window holds back joins this refresh's plan.
    for (qint32 i : found) {
        const qint64 cost = m_routes[size_t(m_keys.at(i).route)].readCost;
        if (m_plan.done() && m_budget.mayRead(cost, steadyMicros()) && m_budget.windowAllows(cost))
            readKey(i);
        else if (m_budget.unlimited()
            || qint64(m_plan.size()) < std::max<qint64>(0, m_budget.readsLeft()))
            m_plan.append(m_keys.at(i).key);
    }
    if (m_readsWaitForWindow || m_continuationArmed || m_plan.done())
        return; // already going on
    m_readsWaitForWindow = true; // the plan goes on as replies come in
}

void QuotaMonitor::sendReads()
{
    // No plan longer than a refresh's budget could read (every key takes at least a command).
    const size_t cap = m_budget.unlimited() ? size_t(m_keys.size())
                                            : size_t(m_budget.perRefresh(m_options.intervalMs));
    // Without a budget, until the keyspace has been walked once, the long tail waits: rereading
    // it would queue every SCAN behind a refresh's worth of reads on the one connection, and a
    // million keys took eight times as long to find and read once (docs/benchmarks.md).
    const bool withTail = !m_budget.unlimited() || walkedOnce();
    m_plan.build(m_keys, quint32(m_refreshes), cap, withTail);
    continueReads();
}

void QuotaMonitor::continueReads()
{
    // Sends what the budget allows now. The budget is a sliding second: what the last refresh
    // sent frees up while this one runs, so the plan goes on in small steps until the refresh's
    // time is up rather than waiting for the next refresh (which would halve the read rate).
    // Scans waiting for budget go first; reads leave what scans and the next refresh need.
    bool scansWaiting = false;
    for (size_t g = 0; g < m_groups.size(); ++g)
        if (!m_groups[g].scanning && !m_groups[g].passDone) {
            sendScan(g);
            scansWaiting = scansWaiting || !m_groups[g].scanning;
        }
    // At most a slice per turn of the event loop: writing 100 000 reads at once (no budget)
    // held the GUI thread for 100 ms; a slice of 4000 takes about 4 ms, and the next follows
    // as soon as the loop has served the screen.
    int slice = kReadsPerTurn;
    bool heldByWindow = false;
    while (!m_plan.done() && connected() && slice > 0) {
        const qint32 index = m_keys.indexOf(m_plan.next());
        if (index < 0) {
            m_plan.advance(); // gone meanwhile
            continue;
        }
        const KeyTable::Entry &e = m_keys.at(index);
        const qint64 cost = m_routes[size_t(e.route)].readCost;
        if (!m_budget.mayRead(cost, steadyMicros()))
            break;
        if (!m_budget.windowAllows(cost)) {
            heldByWindow = true;
            break;
        }
        if (pastDeadline() && m_budget.unlimited())
            break; // the rest waits for the next refresh, which plans anew
        if (e.everRead && !e.hot())
            m_keys.tailReadUpTo(index);
        readKey(index);
        m_plan.advance();
        --slice;
    }
    // Every planned key is read and no SCAN is out (its keys would be read from this share at
    // once): what is left of the reads' share may scan.
    if (m_plan.done() && !scanInFlight())
        m_budget.readsNeedNoMore();
    // Cut short by the slice, the plan goes on at the next turn whatever the time: the budget
    // allowed all of it, as it did when the plan went out in one piece. Held back by the budget,
    // it waits for the budget to free up, until 90% of the interval.
    // Held by the in-flight window, it goes on as replies drain it (afterReply()).
    const bool cutBySlice = slice == 0 && !m_plan.done();
    if (heldByWindow && connected() && !pastDeadline()) {
        m_readsWaitForWindow = true;
        return;
    }
    if (!connected() || (!cutBySlice && ((m_plan.done() && !scansWaiting) || pastDeadline()))) {
        m_plan.clear();
        return;
    }
    expect(1); // the refresh is not over while its plan goes on
    m_continuationArmed = true; // one timer at a time carries the plan on
    QTimer::singleShot(cutBySlice ? 0 : 10, this, ofThisRefresh([this] {
        m_continuationArmed = false;
        continueReads();
        replied();
    }));
}

void QuotaMonitor::readKey(qint32 index)
{
    KeyTable::Entry &e = m_keys.at(index);
    e.readIn = quint32(m_refreshes);
    const QList<Command> commands = m_routes[size_t(e.route)].decoder->reads(e.key);
    m_budget.takeRead(commands.size(), steadyMicros());
    const QByteArray key = e.key;
    if (commands.size() == 1) { // the common case (Quota Studio's keys): nothing to gather
        send(commands[0], [this, key](const RespValue &r) { onRead(key, {r}); });
        return;
    }
    // The replies of one key's commands, gathered in one allocation.
    struct Gathered {
        QByteArray key;
        QList<RespValue> replies;
        qsizetype left;
    };
    auto gathered = std::make_shared<Gathered>(Gathered{key, {}, commands.size()});
    gathered->replies.resize(commands.size());
    for (qsizetype c = 0; c < commands.size(); ++c)
        send(commands[c], [this, gathered, c](const RespValue &r) {
            gathered->replies[c] = r;
            if (--gathered->left == 0)
                onRead(gathered->key, gathered->replies);
        });
}

bool QuotaMonitor::redirected(const QByteArray &key, const QList<RespValue> &replies)
{
    if (!m_options.clusterNode)
        return false;
    for (const RespValue &r : replies) {
        if (!r.isError())
            continue;
        const auto to
            = limiter::parseRedirection(std::string_view(r.text.constData(), size_t(r.text.size())),
                m_options.connection.host.toStdString());
        if (!to)
            continue;
        const int route = m_keys.at(m_keys.indexOf(key)).route;
        m_keys.forget(key);
        emit movedTo(route, key, QString::fromStdString(to->to.host), quint16(to->to.port));
        return true;
    }
    return false;
}

void QuotaMonitor::onRead(const QByteArray &key, const QList<RespValue> &replies)
{
    if (!connected())
        return; // an error made by the lost connection says nothing about the key
    const qint32 index = m_keys.indexOf(key);
    if (index < 0)
        return;
    // A key another node holds now (a reshard) is counted once, by that node.
    if (redirected(key, replies))
        return;
    for (const RespValue &r : replies)
        if (r.isError() && !r.text.startsWith("WRONGTYPE")) // another type: the key's problem
            noteRefusal("a read of " + key.left(100), r);
    const qint64 now = serverNowUs();
    const KeyQuota q = m_routes[size_t(m_keys.at(index).route)].decoder->decode(key, replies, now);
    ++m_keysRead;
    if (q.status == KeyQuota::Status::Gone)
        m_keys.forget(key);
    else
        m_keys.store(index, q, now);
}

void QuotaMonitor::adopt(int route, const QByteArray &key)
{
    if (route >= 0 && size_t(route) < m_routes.size() && !m_keys.contains(key))
        m_keys.track(route, key);
}

void QuotaMonitor::replied()
{
    if (m_refreshing && --m_pending == 0)
        finishRefresh();
}

void QuotaMonitor::finishRefresh()
{
    m_refreshing = false;
    m_budget.endRefresh(!scansDone());
    MonitorSnapshot s = snapshot();
    m_history.push_back(s);
    const size_t keep
        = size_t(std::max(1, m_options.historySeconds * 1000 / std::max(50, m_options.intervalMs)));
    while (m_history.size() > keep)
        m_history.pop_front();
    emit refreshed(s);
}

std::vector<KeyRow> QuotaMonitor::keyRows() const
{
    return m_keys.rows();
}

MonitorSnapshot QuotaMonitor::snapshot() const
{
    MonitorSnapshot s;
    s.state = m_client.state();
    s.stateText = m_client.stateText();
    s.serverTimeUs = connected() ? m_serverTimeUs : 0;
    s.commandsSent = m_client.commandsSent();
    s.keysRead = m_keysRead;
    s.scanComplete = walkedOnce();
    s.lastError = m_lastError;
    s.scanCost = scanCostNow();
    for (const MonitoredRoute &r : m_routes) {
        RouteStatus status;
        status.id = r.id;
        status.problem = r.problem;
        status.allowedPerSecond = r.allowed;
        status.deniedPerSecond = r.denied;
        status.plans = r.planRates;
        s.routes.append(status);
    }
    m_keys.summarize(s, m_options.hotKeyCount, kUnreadableSample);
    return s;
}

void QuotaMonitor::resetKey(const QByteArray &key, RespClient::Callback done)
{
    if (m_readOnly) {
        if (done)
            done(RespValue::error("read-only: turn read-only off to reset a key"));
        return;
    }
    m_client.send({"DEL", key}, std::move(done));
    m_keys.forget(key);
}

} // namespace qs
