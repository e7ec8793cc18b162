// The monitor on the cluster fixture's three masters (ClusterMonitor): 100 000 keys spread
// over the masters, all read within the budget split across them; a killed master shows as
// down while the others are read on, and its successor is found by the next slot map.
#include "clusterfixture.h"

#include "limiter/redis/keyslot.h"
#include "limiter/redis/redisbackend.h"
#include "model/monitor/clustermonitor.h"
#include "model/redis/loadgenerator.h"
#include "tests/integration/monitor/monitorfixture.h"
#include "tests/unit/limiter/trace.h"

#include <QElapsedTimer>

#include <gtest/gtest.h>

#include <optional>

#include <algorithm>
#include <cmath>
#include <set>
#include <unistd.h>

using namespace qs;
using namespace qs::test;

namespace {

QByteArray policyYaml(const std::string &prefix)
{
    return QByteArray::fromStdString(R"(quota_studio: 1
name: cluster-monitor
redis: { prefix: )"
        + prefix + R"( }
routes:
  - { id: api, match: { path: /api }, limit: { algorithm: gcra, rate: 1/h, burst: 10 } }
)");
}

MonitorOptions clusterOptions(const Cluster &cluster)
{
    MonitorOptions o = monitorOptions(cluster.seeds().front().port);
    for (size_t i = 1; i < cluster.seeds().size(); ++i)
        o.moreSeeds.append(
            {QString::fromStdString(cluster.seeds()[i].host), quint16(cluster.seeds()[i].port)});
    return o;
}

// `count` keys of the policy's route, written through RedisBackend on the cluster, the first
// `throttled` of them used up (ten requests each).
void writeKeys(const Cluster &cluster, const Policy &policy, int count, int throttled)
{
    const auto made = redisRulesFor(policy, QString());
    ASSERT_TRUE(made.hasValue()) << made.error().toStdString();
    const std::vector<limiter::RedisRule> &rules = *made;
    ASSERT_EQ(rules.size(), 1u);
    limiter::RedisBackend backend(cluster.endpoint());
    ASSERT_TRUE(backend.connect()) << backend.lastError();
    std::vector<std::string> keys(1000);
    std::vector<limiter::RedisRequest> batch(1000);
    for (int from = 0; from < count; from += 1000) {
        const int n = std::min(1000, count - from);
        for (int i = 0; i < n; ++i) {
            keys[size_t(i)] = limiter::test::numbered("k", from + i);
            const int cost = from + i < throttled ? 10 : 1;
            batch[size_t(i)] = {&rules[0], keys[size_t(i)], cost, std::nullopt};
        }
        for (const limiter::Decision &d : backend.acquireBatch(std::span(batch).first(size_t(n))))
            ASSERT_TRUE(d.allowed) << backend.lastError();
    }
}

} // namespace

TEST(ClusterMonitor, HundredThousandKeysOnThreeMastersAllReadWithinTheSplitBudget)
{
    const Cluster cluster;
    ASSERT_FALSE(cluster.seeds().empty()) << "run through ctest (cluster fixture)";
    const std::string prefix = "cm" + std::to_string(::getpid());
    const Policy policy = policyOrFail(policyYaml(prefix));
    constexpr int kKeys = 100'000;
    writeKeys(cluster, policy, kKeys, 500);

    ClusterMonitor monitor(policy);
    Snapshots snapshots(monitor);
    MonitorOptions o = clusterOptions(cluster);
    o.budgetPerSecond = 450'000; // 150 000 per master: a refresh of its ~33 000 keys, twice
    o.intervalMs = 1000;
    o.hotKeyCount = 600;
    QElapsedTimer elapsed;
    elapsed.start();
    monitor.start(o);
    const MonitorSnapshot *full = snapshots.waitFor(
        [&](const MonitorSnapshot &s) {
            return s.scanComplete && s.keysRead == kKeys && routeIn(s, "api")->keys == kKeys;
        },
        30'000);
    ASSERT_TRUE(full) << "keys " << routeIn(snapshots.last(), "api")->keys << ", read "
                      << snapshots.last().keysRead << ": "
                      << snapshots.last().stateText.toStdString();
    EXPECT_TRUE(monitor.isCluster());
    ASSERT_EQ(full->nodes.size(), 3);
    qint64 sum = 0;
    for (const NodeStatus &n : full->nodes) {
        EXPECT_EQ(n.state, RespClient::State::Connected) << n.address.toStdString();
        EXPECT_GT(n.keys, kKeys / 5) << n.address.toStdString() << ": the keys are spread";
        sum += n.keys;
    }
    EXPECT_EQ(sum, kKeys);
    EXPECT_EQ(routeIn(*full, "api")->throttled, 500);
    EXPECT_EQ(full->hotKeys.size(), 600);
    EXPECT_TRUE(full->hotKeys.front().quota.throttled);
    const double seconds = double(elapsed.elapsed()) / 1000.0;
    // Every node kept its share: together no more than the whole budget per second begun.
    EXPECT_LE(double(snapshots.last().commandsSent), 450'000.0 * std::ceil(seconds) + 100)
        << seconds << " s";
    monitor.stop();
}

TEST(ClusterMonitor, AKilledMasterShowsAsDownWhileTheOthersAreReadThenItsSuccessor)
{
    const Cluster cluster;
    ASSERT_FALSE(cluster.seeds().empty()) << "run through ctest (cluster fixture)";
    ASSERT_TRUE(cluster.allOk());
    // An earlier failover test may have left the first seed a replica.
    ASSERT_TRUE(cluster.makeMaster(cluster.seeds().front().port));
    const std::string prefix = "cd" + std::to_string(::getpid());
    const Policy policy = policyOrFail(policyYaml(prefix));
    writeKeys(cluster, policy, 3000, 0);

    ClusterMonitor monitor(policy);
    Snapshots snapshots(monitor);
    MonitorOptions o = clusterOptions(cluster);
    o.budgetPerSecond = 150'000; // the earlier tests' keys are in the walk too
    monitor.start(o);
    const MonitorSnapshot *all = snapshots.waitFor(
        [](const MonitorSnapshot &s) { return s.scanComplete && routeIn(s, "api")->keys == 3000; },
        15'000);
    ASSERT_TRUE(all) << snapshots.last().stateText.toStdString() << ", "
                     << routeIn(snapshots.last(), "api")->keys << " keys";
    // The first seed: the node the slot map is asked of, too, so that the monitor must find
    // another to learn of the failover.
    const QString first = QString::fromStdString(cluster.seeds().front().text());
    const auto found = std::find_if(all->nodes.begin(), all->nodes.end(),
        [&](const NodeStatus &n) { return n.address == first; });
    ASSERT_NE(found, all->nodes.end()) << first.toStdString();
    const NodeStatus victim = *found;
    const qsizetype victimIndex = found - all->nodes.begin();
    const int victimPort = victim.address.section(QLatin1Char(':'), -1).toInt();
    ASSERT_TRUE(cluster.kill(victimPort));
    // Down, while the other two are still read.
    const MonitorSnapshot *down = snapshots.waitFor(
        [&](const MonitorSnapshot &s) {
            return s.nodes.size() == 3 && s.nodes[victimIndex].state != RespClient::State::Connected
                && s.state == RespClient::State::Connected;
        },
        10'000);
    ASSERT_TRUE(down) << snapshots.last().stateText.toStdString();
    EXPECT_TRUE(down->stateText.contains(QStringLiteral("2 of 3 masters connected")))
        << down->stateText.toStdString();
    EXPECT_TRUE(down->stateText.contains(victim.address)) << down->stateText.toStdString();
    EXPECT_GT(routeIn(*down, "api")->keys, 1000) << "the other masters' keys are still shown";
    // The replica takes over; the next slot map names it and its keys are read again.
    const MonitorSnapshot *successor = snapshots.waitFor(
        [&](const MonitorSnapshot &s) {
            if (s.nodes.size() != 3 || !s.scanComplete)
                return false;
            for (const NodeStatus &n : s.nodes)
                if (n.state != RespClient::State::Connected || n.address == victim.address)
                    return false;
            return routeIn(s, "api")->keys == 3000;
        },
        20'000);
    monitor.stop();
    EXPECT_TRUE(cluster.revive(victimPort));
    ASSERT_TRUE(successor) << snapshots.last().stateText.toStdString();
    // The fixture is whole again, with its first roles, for the tests after this one.
    EXPECT_TRUE(cluster.makeMaster(victimPort));
}

// A reshard under a running monitor: the moved keys answer MOVED at their old master and are
// counted once, by the new one, from the next refresh (they were counted twice until the next
// slot map); and slot 0 moving changes the order in which CLUSTER SLOTS names the masters, not
// the masters, so the monitor keeps the keys it has found (it started over, the counts falling
// while the new walk ran).
TEST(ClusterMonitor, AReshardThatReordersTheMastersKeepsEveryKeyInSight)
{
    const Cluster cluster;
    ASSERT_FALSE(cluster.seeds().empty()) << "run through ctest (cluster fixture)";
    ASSERT_TRUE(cluster.allOk());
    const std::string prefix = "co" + std::to_string(::getpid());
    const Policy policy = policyOrFail(policyYaml(prefix));
    writeKeys(cluster, policy, 3000, 0);

    ClusterMonitor monitor(policy);
    Snapshots snapshots(monitor);
    MonitorOptions o = clusterOptions(cluster);
    o.budgetPerSecond = 150'000;
    monitor.start(o);
    ASSERT_TRUE(snapshots.waitFor(
        [](const MonitorSnapshot &s) { return s.scanComplete && routeIn(s, "api")->keys == 3000; },
        15'000))
        << routeIn(snapshots.last(), "api")->keys << " keys";

    const ClusterNode *first = cluster.masterOf(0);
    ASSERT_TRUE(first);
    const ClusterNode source = *first;
    // The master of a slot the source does not hold, as the slot map says: a node's flags can
    // still call a replica master just after another test's failover (redis-cli then refused it:
    // "not known or not a master").
    std::optional<ClusterNode> other; // a copy: masterOf()'s answer lasts until its next call
    for (const int slot : {16383, 10922, 8192, 5461})
        if (const ClusterNode *m = cluster.masterOf(slot); m && m->id != source.id) {
            other = *m;
            break;
        }
    ASSERT_TRUE(other);
    const ClusterNode target = *other;
    // The source's first 50 slots, 0 among them: the target becomes the first master named.
    ASSERT_TRUE(cluster.agrees()) << "an earlier test's reshard has not reached every node";
    ASSERT_EQ(cluster.reshard(source, target, 50), "");
    ASSERT_EQ(cluster.masterOf(0)->id, target.id);
    // Past the next slot map (every 5 s): every snapshot still counts all the keys.
    const size_t since = snapshots.all.size();
    snapshots.waitFor([](const MonitorSnapshot &) { return false; }, 7'000);
    monitor.stop();
    // Merged from each master's last refresh, a snapshot may catch a key between the refresh
    // that forgot it at the old master and the one that reads it at the new: one refresh
    // (200 ms) of keys in motion, never a key counted twice, never the walk begun again.
    int more = 0, fewerLater = 0, incomplete = 0;
    std::string counts;
    for (size_t i = since; i < snapshots.all.size(); ++i) {
        const qint64 keys = routeIn(snapshots.all[i], "api")->keys;
        more += keys > 3000;
        fewerLater += keys < 3000 && i >= since + 5;
        incomplete += !snapshots.all[i].scanComplete;
        counts += std::to_string(keys) + " ";
    }
    // The fixture as it was, for the tests after this one: slots 0-49 back where they were.
    EXPECT_EQ(cluster.reshard(target, source, 50), "");
    EXPECT_EQ(cluster.masterOf(0)->id, source.id);
    // Gossip spreads the slots moved back; on a loaded machine that took longer than 10 s.
    EXPECT_TRUE(cluster.agrees(30'000));
    EXPECT_EQ(more, 0) << "snapshots that counted a moved key twice: " << counts;
    EXPECT_EQ(fewerLater, 0) << "snapshots short of keys a second after the reshard: " << counts;
    EXPECT_EQ(incomplete, 0) << "snapshots that began the walk again: " << counts;
    EXPECT_EQ(routeIn(snapshots.last(), "api")->keys, 3000);
}
