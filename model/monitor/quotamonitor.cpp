#include "model/monitor/quotamonitor.h"

#include "limiter/redis/clusterslots.h"
#include "limiter/redis/keylayout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qs {

namespace {

constexpr int kRescanEveryRefreshes = 5; // a new SCAN pass at most every 5 refreshes
constexpr int kUnreadableSample = 20;
constexpr int kReadsPerTurn = 4000; // keys whose reads one turn of the event loop sends
constexpr qint64 kMaxInFlight = 16'384; // commands sent and not yet answered, at most
// How often the cost of a SCAN is measured again from the server's INFO commandstats.
constexpr qint64 kCostEveryUs = 10'000'000;

// Commands in flight at once. Without a budget a fixed window: bounded work however large the
// keyspace. With one, a twentieth of it: what the server processes in any second was either
// in flight when the second began or sent during it, so the sliding log allows budget − window
// and the server's own counters never see more than the budget.
qint64 inFlightWindow(qint64 budget)
{
    return budget == 0 ? kMaxInFlight : std::clamp<qint64>(budget / 20, 1, kMaxInFlight);
}

qint64 logBudget(qint64 budget)
{
    return budget == 0 ? 0 : std::max<qint64>(1, budget - inFlightWindow(budget));
}

// INFO commandstats: calls and usec of the commands the monitor cares about, summed.
CommandCost commandCost(const QByteArray &info, const QList<QByteArray> &commands)
{
    CommandCost total;
    for (const QByteArray &line : info.split('\n')) {
        const qsizetype colon = line.indexOf(':');
        if (!line.startsWith("cmdstat_") || colon < 0 || !commands.contains(line.mid(8, colon - 8)))
            continue;
        for (const QByteArray &field : line.mid(colon + 1).trimmed().split(',')) {
            if (field.startsWith("calls="))
                total.calls += field.mid(6).toLongLong();
            else if (field.startsWith("usec="))
                total.usec += field.mid(5).toLongLong();
        }
    }
    return total;
}

} // namespace

QuotaMonitor::QuotaMonitor(const Policy &policy, QObject *parent) : QObject(parent)
{
    m_steady.start();
    for (const Route &route : policy.routes)
        watch(policy, route);
    connect(&m_timer, &QTimer::timeout, this, &QuotaMonitor::refresh);
    connect(&m_client, &RespClient::stateChanged, this, [this](RespClient::State state) {
        if (state == RespClient::State::Connected && !m_refreshing)
            refresh(); // the first figures as soon as there is a connection
    });
}

void QuotaMonitor::watch(const Policy &policy, const Route &route)
{
    RouteWatch w;
    w.id = route.id;
    auto decoder = makeLayoutDecoder(policy, route);
    if (!decoder)
        w.problem = decoder.error();
    else
        w.decoder = std::move(*decoder);
    // Per-second metrics exist only where Quota Studio's scripts write the keys.
    const bool ownKeys = std::none_of(policy.redis.layouts.cbegin(), policy.redis.layouts.cend(),
        [&](const RedisLayout &l) { return l.routeId == route.id; });
    if (policy.redis.metrics.value_or(false) && ownKeys) {
        w.metricsPrefix
            = QByteArray::fromStdString(
                  limiter::keylayout::metricsPrefix(limiter::keylayout::routePrefix(
                      policy.redis.effectivePrefix().toStdString(), route.id.toStdString())))
            + limiter::keylayout::kSeparator;
        ++m_metricsRoutes;
    }
    if (w.decoder) {
        w.readCost = qint64(w.decoder->reads("k").size());
        joinScanGroup(w.decoder->scanGroupPattern(), int(m_routes.size()));
    }
    m_routes.push_back(std::move(w));
}

void QuotaMonitor::joinScanGroup(const QByteArray &pattern, int route)
{
    auto group = std::find_if(
        m_groups.begin(), m_groups.end(), [&](const ScanGroup &g) { return g.pattern == pattern; });
    if (group == m_groups.end())
        group = m_groups.insert(m_groups.end(), ScanGroup{pattern, {}});
    group->routes.push_back(route);
}

QuotaMonitor::~QuotaMonitor() = default;

void QuotaMonitor::start(const MonitorOptions &options)
{
    m_options = options;
    m_budget = ReadBudget(logBudget(options.budgetPerSecond));
    m_outstanding = m_peakOutstanding = 0;
    m_readsWaitForWindow = false;
    m_bucketCost = 1.0; // until measured: a bucket walked costs about a read
    m_dbSize = -1;
    m_costSample.reset();
    m_costMeasuredAtUs = std::numeric_limits<qint64>::min() / 2;
    m_scanCarry = 0;
    m_client.open(options.connection);
    m_timer.start(std::max(50, options.intervalMs));
}

void QuotaMonitor::setBudgetPerSecond(qint64 perSecond)
{
    m_options.budgetPerSecond = perSecond;
    m_budget.setPerSecond(logBudget(perSecond));
}

void QuotaMonitor::stop()
{
    m_timer.stop();
    ++m_generation;
    m_refreshing = false;
    m_pending = 0;
    m_client.close();
}

qint64 QuotaMonitor::budgetAvailable() const
{
    return m_budget.perSecond() == 0 ? std::numeric_limits<qint64>::max()
                                     : m_budget.available(steadyMicros());
}

void QuotaMonitor::spend(qint64 commands)
{
    if (m_budget.perSecond() != 0)
        m_budget.take(commands, steadyMicros());
}

qint64 QuotaMonitor::serverNowUs() const
{
    return m_serverTimeUs + (steadyMicros() - m_serverTimeAtSteady);
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
    m_planPos = 0;
    if (!connected()) {
        // Nothing is sent while the connection is down: commands would queue and burst out on
        // reconnection. A SCAN pass resumes from its cursor once connected again (a cursor
        // stays valid; keys the server gained meanwhile are found by the next pass), rather
        // than walking a large keyspace from the start after every lost connection.
        finishRefresh();
        return;
    }
    if (budgetAvailable() < 1)
        return; // not even TIME fits: the next refresh tries again
    spend(1);
    m_refreshing = true;
    m_refreshStartUs = now;
    m_keysRead = 0;
    m_lastError.clear();
    ++m_refreshes;
    const qint64 perRefresh = m_budget.perSecond() == 0
        ? std::numeric_limits<int>::max()
        : std::max<qint64>(1, m_budget.perSecond() * m_options.intervalMs / 1000);
    // Scans may take a fifth of the refresh's budget, half until the keyspace has been walked
    // once; reads the rest. Either gives what it does not need to the other (below).
    const bool discovering = std::any_of(
        m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.passes == 0; });
    const qint64 overhead = 1 + m_metricsRoutes; // TIME and the metrics reads
    const bool scanning = std::any_of(m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) {
        return !g.passDone;
    }) || m_refreshes % kRescanEveryRefreshes == 0;
    // A SCAN that costs more than one refresh's share goes out every few refreshes: what a
    // share left unspent is carried over, up to one SCAN.
    m_scanBudgetLeft
        = scanning ? perRefresh / (discovering ? 2 : 5) + std::min(m_scanCarry, scanCost()) : 0;
    m_scanCarry = 0;
    // Reads get the rest, for this refresh as a whole: spent as the sliding second frees up,
    // they would otherwise take every unit the moment it frees and starve the scans.
    m_readBudgetLeft = std::max<qint64>(0, perRefresh - overhead - m_scanBudgetLeft);
    measureCosts(); // answered before TIME: this refresh's scans are charged what they cost
    send({"TIME"}, [this](const RespValue &reply) { onTime(reply); });
}

template <class Handle>
void QuotaMonitor::send(const Command &argv, Handle handle)
{
    m_peakOutstanding = std::max(m_peakOutstanding, ++m_outstanding);
    expect(1);
    const quint64 generation = m_generation;
    // One callable per command, the handler inside it (not a std::function in a std::function:
    // a million reads made two million allocations of it).
    m_client.send(argv, [this, generation, handle = std::move(handle)](const RespValue &reply) {
        --m_outstanding; // in flight whichever refresh sent it
        if (generation != m_generation)
            return;
        handle(reply);
        afterReply();
    });
}

void QuotaMonitor::afterReply()
{
    // Reads held back by the in-flight window go on once half of it has drained: in batches,
    // not one command per reply.
    if (m_readsWaitForWindow && m_outstanding <= inFlightWindow(m_options.budgetPerSecond) / 2) {
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
    const qint64 cutUs = m_budget.perSecond() == 0
        ? std::max(intervalUs * 9 / 10, intervalUs - 50'000)
        : intervalUs * 9 / 10;
    return steadyMicros() >= m_refreshStartUs + cutUs;
}

void QuotaMonitor::measureCosts()
{
    // What a SCAN costs Redis, in reads, from the server's own accounting: it walks COUNT
    // buckets (the whole table when it is smaller) whatever MATCH keeps, each about a read's
    // worth of CPU (957 µs for COUNT 1000 over 2M keys against 0.9 µs per read here:
    // docs/benchmarks.md). Measured at connection and again every 10 s as the keyspace changes;
    // a server that refuses INFO or DBSIZE (an ACL) keeps the estimate of a read per bucket.
    if (m_infoRefused || m_serverTimeUs - m_costMeasuredAtUs < kCostEveryUs
        || budgetAvailable() < m_infoCost + 1)
        return;
    spend(m_infoCost + 1);
    m_costMeasuredAtUs = m_serverTimeUs;
    send({"DBSIZE"}, [this](const RespValue &reply) {
        if (reply.type == RespValue::Type::Integer)
            m_dbSize = reply.integer;
    });
    const ScansSent scans = m_scansSent;
    m_scansSent = {};
    send({"INFO", "commandstats"}, [this, scans](const RespValue &reply) {
        if (reply.type != RespValue::Type::String) {
            m_infoRefused = reply.isError() && !reply.text.startsWith("LOADING");
            return;
        }
        static const QList<QByteArray> reads
            = {"get", "mget", "hmget", "pttl", "lrange", "zrange", "hgetall"};
        const CostSample now{commandCost(reply.text, {"scan"}), commandCost(reply.text, reads),
            commandCost(reply.text, {"info"})};
        const bool first = !m_costSample;
        const CostSample since = first ? now : now.minus(*m_costSample);
        m_costSample = now;
        if (since.reads.calls < 100 || since.reads.usec <= 0)
            return;
        const double read = double(since.reads.usec) / double(since.reads.calls);
        if (since.info.calls >= 1)
            m_infoCost = std::clamp<qint64>(
                qint64(std::llround(double(since.info.usec) / double(since.info.calls) / read)), 1,
                10'000);
        // Per bucket, from the SCANs this monitor sent since the last sample (their COUNTs
        // are known; other clients' SCANs are rare and count alike).
        if (!first && since.scans.calls >= 3 && scans.calls > 0 && scans.buckets > 0)
            m_bucketCost = std::clamp(double(since.scans.usec) / double(since.scans.calls) / read
                    / (double(scans.buckets) / double(scans.calls)),
                0.01, 20.0);
    });
}

int QuotaMonitor::scanCountNow() const
{
    // A SCAN must fit in half a second of the budget, or it would never go out: a budget too
    // small for COUNT's buckets walks fewer per call.
    if (m_budget.perSecond() == 0)
        return m_options.scanCount;
    const double fits = double(m_budget.perSecond()) / 2 / m_bucketCost;
    return int(std::clamp<double>(fits, 10, m_options.scanCount));
}

qint64 QuotaMonitor::bucketsWalked(int count) const
{
    return m_dbSize >= 0 ? std::max<qint64>(1, std::min<qint64>(count, m_dbSize)) : count;
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
    for (RouteWatch &w : m_routes) {
        if (w.metricsPrefix.isEmpty() || budgetAvailable() < 1)
            continue;
        spend(1);
        send({"HMGET", w.metricsPrefix + second, "a", "d"}, [&w](const RespValue &reply) {
            if (reply.type == RespValue::Type::Array && reply.elements.size() == 2) {
                w.allowed = replyNumber(reply.elements[0]).value_or(0);
                w.denied = replyNumber(reply.elements[1]).value_or(0);
            }
        });
    }
}

bool QuotaMonitor::mayRead(qint64 commands) const
{
    return m_budget.perSecond() == 0
        || (m_readBudgetLeft >= commands && budgetAvailable() >= commands);
}

bool QuotaMonitor::windowAllows(qint64 commands) const
{
    return m_outstanding + commands <= inFlightWindow(m_options.budgetPerSecond);
}

qint64 QuotaMonitor::scanCost() const
{
    // Counted as one command, a SCAN would let the budget hide most of what the monitor costs:
    // measureCosts() keeps what the server says it costs.
    return std::max<qint64>(
        1, qint64(std::ceil(m_bucketCost * double(bucketsWalked(scanCountNow())))));
}

void QuotaMonitor::sendScan(size_t group)
{
    ScanGroup &g = m_groups[group];
    const qint64 cost = scanCost();
    if (m_scanBudgetLeft < cost || !connected() || budgetAvailable() < cost)
        return;
    spend(cost);
    m_scanBudgetLeft -= cost;
    g.scanning = true;
    const int count = scanCountNow();
    ++m_scansSent.calls;
    m_scansSent.buckets += bucketsWalked(count);
    send({"SCAN", g.cursor, "MATCH", g.pattern, "COUNT", QByteArray::number(count)},
        [this, group](const RespValue &reply) { onScan(group, reply); });
    // The chain waits for this SCAN: on the wire now, not after the replies of this turn of
    // the event loop have been handled (a pass over a million keys took 1.3x as long).
    m_client.flush();
}

void QuotaMonitor::onScan(size_t group, const RespValue &reply)
{
    m_groups[group].scanning = false;
    scanAnswered(group, reply);
}

void QuotaMonitor::scanAnswered(size_t group, const RespValue &reply)
{
    ScanGroup &g = m_groups[group];
    noteRefusal("SCAN", reply);
    if (reply.type != RespValue::Type::Array || reply.elements.size() != 2)
        return; // refused, or connection trouble: the pass goes on at the next refresh
    std::vector<qint32> found;
    for (const RespValue &k : reply.elements[1].elements) {
        if (m_index.contains(k.text))
            continue;
        for (int route : g.routes)
            if (m_routes[size_t(route)].decoder->accepts(k.text)) {
                found.push_back(qint32(m_keys.size()));
                track(route, k.text);
                break;
            }
    }
    g.cursor = reply.elements[0].text;
    if (g.cursor == "0") {
        g.passDone = true;
        ++g.passes;
        if (std::all_of(m_groups.cbegin(), m_groups.cend(),
                [](const ScanGroup &other) { return other.passDone; })) {
            m_readBudgetLeft += m_scanBudgetLeft; // what the scans did not need
            m_scanBudgetLeft = 0;
        }
    } else if (!pastDeadline()) {
        sendScan(group); // chained within this refresh's share of the budget and its time
    }
    // New keys are read at once, while the next SCAN walks on: the round trips overlap. What
    // the budget or the in-flight window holds back joins this refresh's plan.
    for (qint32 i : found) {
        const qint64 cost = m_routes[size_t(m_keys[size_t(i)].route)].readCost;
        if (m_planPos >= m_plan.size() && mayRead(cost) && windowAllows(cost))
            readKey(i);
        else if (m_budget.perSecond() == 0
            || qint64(m_plan.size()) < std::max<qint64>(0, m_readBudgetLeft))
            m_plan.push_back(m_keys[size_t(i)].key);
    }
    if (m_readsWaitForWindow || m_continuationArmed || m_planPos >= m_plan.size())
        return; // already going on
    m_readsWaitForWindow = true; // the plan goes on as replies come in
}

bool QuotaMonitor::hot(const Tracked &t) const
{
    // Near or over the limit: within 10% of it, or throttled.
    return t.everRead && t.status == KeyQuota::Status::Read
        && (t.throttled || t.remaining * 10 <= t.limit);
}

void QuotaMonitor::sendReads()
{
    // This refresh's plan: the hot keys (the hottest first, so that they win when even they do
    // not all fit), then keys never read, then the long tail from where the last refresh
    // stopped. Keys, not positions: a key that expires meanwhile moves the others.
    std::vector<qint32> hotKeys, fresh;
    for (qint32 i = 0; i < qint32(m_keys.size()); ++i) {
        const Tracked &t = m_keys[size_t(i)];
        if (t.readIn == quint32(m_refreshes))
            continue; // read as soon as a SCAN found it
        if (hot(t))
            hotKeys.push_back(i);
        else if (!t.everRead)
            fresh.push_back(i);
    }
    std::sort(hotKeys.begin(), hotKeys.end(), [this](qint32 a, qint32 b) {
        const Tracked &x = m_keys[size_t(a)], &y = m_keys[size_t(b)];
        return x.remaining * std::max<qint64>(1, y.limit)
            < y.remaining * std::max<qint64>(1, x.limit);
    });
    // No plan longer than a refresh's budget could read (every key takes at least a command).
    const size_t cap = m_budget.perSecond() == 0
        ? m_keys.size()
        : size_t(std::max<qint64>(1, m_budget.perSecond() * m_options.intervalMs / 1000));
    m_plan.clear();
    for (const auto *list : {&hotKeys, &fresh})
        for (qint32 i : *list)
            if (m_plan.size() < cap)
                m_plan.push_back(m_keys[size_t(i)].key);
    // Without a budget, until the keyspace has been walked once, the long tail waits: rereading
    // it would queue every SCAN behind a refresh's worth of reads on the one connection, and a
    // million keys took eight times as long to find and read once (docs/benchmarks.md).
    const bool firstWalk = std::any_of(
        m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.passes == 0; });
    const size_t n = m_budget.perSecond() == 0 && firstWalk ? 0 : m_keys.size();
    for (size_t step = 0; step < n && m_plan.size() < cap; ++step) {
        const Tracked &t = m_keys[(m_rotation + step) % n];
        if (t.everRead && !hot(t) && t.readIn != quint32(m_refreshes))
            m_plan.push_back(t.key);
    }
    m_planPos = 0;
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
    while (m_planPos < m_plan.size() && connected() && slice > 0) {
        const auto found = m_index.constFind(m_plan[m_planPos]);
        if (found == m_index.cend()) {
            ++m_planPos; // gone meanwhile
            continue;
        }
        const Tracked &t = m_keys[size_t(*found)];
        const qint64 cost = m_routes[size_t(t.route)].readCost;
        if (!mayRead(cost))
            break;
        if (!windowAllows(cost)) {
            heldByWindow = true;
            break;
        }
        if (pastDeadline() && m_budget.perSecond() == 0)
            break; // the rest waits for the next refresh, which plans anew
        if (t.everRead && !hot(t))
            m_rotation = (size_t(*found) + 1) % std::max<size_t>(1, m_keys.size());
        readKey(*found);
        ++m_planPos;
        --slice;
    }
    // Every planned key is read and no SCAN is out (its keys would be read from this share at
    // once): what is left of the reads' share may scan.
    if (m_planPos >= m_plan.size() && m_readBudgetLeft > 0
        && std::none_of(
            m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return g.scanning; })) {
        m_scanBudgetLeft += m_readBudgetLeft;
        m_readBudgetLeft = 0;
    }
    // Cut short by the slice, the plan goes on at the next turn whatever the time: the budget
    // allowed all of it, as it did when the plan went out in one piece. Held back by the budget,
    // it waits for the budget to free up, until 90% of the interval.
    // Held by the in-flight window, it goes on as replies drain it (send()).
    const bool cutBySlice = slice == 0 && m_planPos < m_plan.size();
    if (heldByWindow && connected() && !pastDeadline()) {
        m_readsWaitForWindow = true;
        return;
    }
    if (!connected()
        || (!cutBySlice && ((m_planPos >= m_plan.size() && !scansWaiting) || pastDeadline()))) {
        m_plan.clear();
        m_planPos = 0;
        return;
    }
    expect(1); // the refresh is not over while its plan goes on
    const quint64 generation = m_generation;
    m_continuationArmed = true; // one timer at a time carries the plan on
    QTimer::singleShot(cutBySlice ? 0 : 10, this, [this, generation] {
        if (generation != m_generation)
            return;
        m_continuationArmed = false;
        continueReads();
        replied();
    });
}

void QuotaMonitor::readKey(qint32 index)
{
    Tracked &t = m_keys[size_t(index)];
    t.readIn = quint32(m_refreshes);
    const QList<Command> commands = m_routes[size_t(t.route)].decoder->reads(t.key);
    spend(commands.size());
    m_readBudgetLeft -= commands.size();
    const QByteArray key = t.key;
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

void QuotaMonitor::onRead(const QByteArray &key, const QList<RespValue> &replies)
{
    if (!connected())
        return; // an error made by the lost connection says nothing about the key
    const auto found = m_index.constFind(key);
    if (found == m_index.cend())
        return;
    Tracked &t = m_keys[size_t(*found)];
    // A key another node holds now (a reshard) is counted once, by that node.
    for (const RespValue &r : replies) {
        if (!m_options.clusterNode || !r.isError())
            continue;
        const auto to
            = limiter::parseRedirection(std::string_view(r.text.constData(), size_t(r.text.size())),
                m_options.connection.host.toStdString());
        if (!to)
            continue;
        const int route = t.route;
        forget(key);
        emit movedTo(route, key, QString::fromStdString(to->to.host), quint16(to->to.port));
        return;
    }
    for (const RespValue &r : replies)
        if (r.isError() && !r.text.startsWith("WRONGTYPE")) // another type: the key's problem
            noteRefusal("a read of " + key.left(100), r);
    const qint64 now = serverNowUs();
    const KeyQuota q = m_routes[size_t(t.route)].decoder->decode(key, replies, now);
    ++m_keysRead;
    if (q.status == KeyQuota::Status::Gone) {
        forget(key);
        return;
    }
    t.store(q, now);
    if (q.status == KeyQuota::Status::Unreadable)
        m_why.insert(key, q.why);
    else
        m_why.remove(key);
}

void QuotaMonitor::Tracked::store(const KeyQuota &q, qint64 nowUs)
{
    if (!everRead || q.remaining != remaining || q.limit != limit || q.status != status)
        changedAtUs = nowUs;
    readAtUs = nowUs;
    everRead = true;
    status = q.status;
    throttled = q.throttled;
    limit = q.limit;
    remaining = q.remaining;
    resetAfterMs = q.resetAfterMs;
    ttlMs = q.ttlMs;
}

KeyQuota QuotaMonitor::Tracked::quota() const
{
    KeyQuota q;
    q.status = status;
    q.throttled = throttled;
    q.limit = limit;
    q.remaining = remaining;
    q.resetAfterMs = resetAfterMs;
    q.ttlMs = ttlMs;
    return q;
}

void QuotaMonitor::track(int route, const QByteArray &key)
{
    m_index.insert(key, qint32(m_keys.size()));
    Tracked t;
    t.key = key;
    t.route = route;
    m_keys.push_back(std::move(t));
}

void QuotaMonitor::adopt(int route, const QByteArray &key)
{
    if (route >= 0 && size_t(route) < m_routes.size() && !m_index.contains(key))
        track(route, key);
}

void QuotaMonitor::forget(const QByteArray &key)
{
    const auto found = m_index.find(key);
    if (found == m_index.end())
        return;
    const size_t at = size_t(*found);
    m_index.erase(found);
    m_why.remove(key);
    if (at + 1 != m_keys.size()) {
        m_keys[at] = std::move(m_keys.back());
        m_index[m_keys[at].key] = qint32(at);
    }
    m_keys.pop_back();
    if (m_rotation >= m_keys.size())
        m_rotation = 0;
}

void QuotaMonitor::replied()
{
    if (m_refreshing && --m_pending == 0)
        finishRefresh();
}

void QuotaMonitor::finishRefresh()
{
    m_refreshing = false;
    if (std::any_of(
            m_groups.cbegin(), m_groups.cend(), [](const ScanGroup &g) { return !g.passDone; }))
        m_scanCarry = std::max<qint64>(0, m_scanBudgetLeft);
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
    std::vector<KeyRow> rows;
    rows.reserve(m_keys.size());
    for (const Tracked &t : m_keys) {
        if (!t.everRead)
            continue;
        rows.push_back({t.key, t.route, t.status, t.throttled, t.limit, t.remaining, t.resetAfterMs,
            t.ttlMs, t.changedAtUs, t.readAtUs});
    }
    return rows;
}

MonitorSnapshot QuotaMonitor::snapshot() const
{
    MonitorSnapshot s;
    s.state = m_client.state();
    s.stateText = m_client.stateText();
    s.serverTimeUs = connected() ? m_serverTimeUs : 0;
    s.commandsSent = m_client.commandsSent();
    s.keysRead = m_keysRead;
    s.scanComplete = true;
    s.lastError = m_lastError;
    s.scanCost = scanCost();
    for (const RouteWatch &w : m_routes) {
        RouteStatus r;
        r.id = w.id;
        r.problem = w.problem;
        r.allowedPerSecond = w.allowed;
        r.deniedPerSecond = w.denied;
        s.routes.append(r);
    }
    for (const ScanGroup &g : m_groups)
        s.scanComplete = s.scanComplete && g.passes > 0;
    std::vector<const Tracked *> candidates;
    for (const Tracked &t : m_keys) {
        RouteStatus &r = s.routes[t.route];
        ++r.keys;
        if (t.status == KeyQuota::Status::Unreadable) {
            ++r.unreadable;
            if (s.unreadable.size() < kUnreadableSample)
                s.unreadable.append({r.id, t.key, m_why.value(t.key)});
        } else if (t.everRead) {
            r.throttled += t.throttled ? 1 : 0;
            candidates.push_back(&t);
        }
    }
    const size_t top = std::min(candidates.size(), size_t(std::max(0, m_options.hotKeyCount)));
    std::partial_sort(candidates.begin(), candidates.begin() + long(top), candidates.end(),
        [](const Tracked *a, const Tracked *b) { return hotter(*a, *b); });
    for (size_t i = 0; i < top; ++i) {
        const Tracked &t = *candidates[i];
        s.hotKeys.append({m_routes[size_t(t.route)].id, t.key, t.quota(), t.readAtUs});
    }
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
    forget(key);
}

} // namespace qs
