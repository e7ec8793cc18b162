#include "model/monitor/monitortimeline.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace qs;

namespace {

// A refresh at `second` with two routes: a counts requests, b does not.
MonitorSnapshot at(double second, qint64 keysA, qint64 throttledA, qint64 keysB,
    std::optional<double> allowedA = std::nullopt, std::optional<double> deniedA = std::nullopt)
{
    MonitorSnapshot s;
    s.serverTimeUs = qint64(std::llround(second * 1e6));
    RouteStatus a, b;
    a.id = QStringLiteral("a");
    a.keys = keysA;
    a.throttled = throttledA;
    a.allowedPerSecond = allowedA;
    a.deniedPerSecond = deniedA;
    b.id = QStringLiteral("b");
    b.keys = keysB;
    s.routes = {a, b};
    return s;
}

} // namespace

TEST(MonitorTimeline, SeriesRunUpToNowSumRoutesAndKeepTheirOwnRoute)
{
    MonitorTimeline timeline;
    timeline.record(at(100, 3, 1, 10, 50.0, 5.0));
    timeline.record(at(101, 4, 2, 11, 60.0, 7.0));
    timeline.record(at(102, 5, 0, 12, 70.0, 0.0));
    const std::vector<Series> all = timeline.keySeries({}, 60);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].name, QStringLiteral("keys seen"));
    EXPECT_EQ(all[0].t, (std::vector<double>{-2, -1, 0}));
    EXPECT_EQ(all[0].value, (std::vector<double>{13, 15, 17}));
    EXPECT_EQ(all[1].value, (std::vector<double>{1, 2, 0}));
    const std::vector<Series> onlyB = timeline.keySeries(QStringLiteral("b"), 60);
    EXPECT_EQ(onlyB[0].value, (std::vector<double>{10, 11, 12}));
    EXPECT_TRUE(timeline.keySeries(QStringLiteral("nope"), 60)[0].t.empty());
    // Requests: only route a counts; summing "all" does not invent b's counts.
    ASSERT_TRUE(timeline.hasRequestCounts());
    const std::vector<Series> requests = timeline.requestSeries({}, 60);
    EXPECT_EQ(requests[0].value, (std::vector<double>{50, 60, 70}));
    EXPECT_EQ(requests[1].value, (std::vector<double>{5, 7, 0}));
    EXPECT_TRUE(timeline.requestSeries(QStringLiteral("b"), 60)[0].t.empty());
}

TEST(MonitorTimeline, TheWindowCutsAndMemoryIsBoundedByKeepSeconds)
{
    MonitorTimeline timeline(30);
    for (int s = 0; s <= 100; ++s)
        timeline.record(at(1000 + s, s, 0, 0));
    EXPECT_EQ(timeline.points(), 31u) << "30 s of 1 s refreshes, both ends included";
    const Series keys = timeline.keySeries(QStringLiteral("a"), 10)[0];
    EXPECT_EQ(keys.t.front(), -10);
    EXPECT_EQ(keys.value.front(), 90);
    EXPECT_EQ(keys.value.back(), 100);
    // Not connected: nothing recorded. A clock that goes back: ignored.
    MonitorSnapshot offline;
    timeline.record(offline);
    timeline.record(at(1050, 7, 0, 0));
    EXPECT_EQ(timeline.points(), 31u);
    EXPECT_EQ(timeline.latest(), 1100);
}

TEST(MonitorTimeline, AFollowedKeyStartsWithWhatTheHotKeysKnewOfIt)
{
    MonitorTimeline timeline;
    std::deque<MonitorSnapshot> recent;
    for (int s = 0; s < 3; ++s) {
        MonitorSnapshot snap = at(200 + s, 1, 1, 0);
        HotKey hot;
        hot.route = QStringLiteral("a");
        hot.key = "qs:a:alice";
        hot.quota.status = KeyQuota::Status::Read;
        hot.quota.limit = 10;
        hot.quota.remaining = 9 - s;
        snap.hotKeys = {hot};
        recent.push_back(snap);
        timeline.record(snap);
    }
    timeline.follow("qs:a:alice", recent);
    timeline.recordKey(203'000'000, 5, 10);
    timeline.record(at(203, 1, 1, 0));
    const std::vector<Series> trail = timeline.keyTrail(60);
    EXPECT_EQ(trail[0].name, QStringLiteral("remaining"));
    EXPECT_EQ(trail[0].value, (std::vector<double>{9, 8, 7, 5}));
    EXPECT_EQ(trail[0].t, (std::vector<double>{-3, -2, -1, 0}));
    EXPECT_EQ(trail[1].value, (std::vector<double>{10, 10, 10, 10}));
    timeline.follow("qs:a:bob");
    EXPECT_TRUE(timeline.keyTrail(60)[0].t.empty()) << "another key's trail starts empty";
}

// Redis down for a while: no line across the outage, as if the keys had drained, but a gap — a
// NaN point halfway — in every series and in the followed key's trail.
TEST(MonitorTimeline, AnOutageIsAGapNotALine)
{
    MonitorTimeline timeline;
    MonitorSnapshot offline; // not connected: no server time
    timeline.record(offline); // before any point: nothing to break
    timeline.follow("qs:a:alice");
    for (const double s : {100.0, 101.0}) {
        timeline.record(at(s, 200, 0, 0, 10.0, 1.0));
        timeline.recordKey(qint64(s * 1e6), 7, 10);
    }
    timeline.record(offline);
    timeline.record(offline);
    for (const double s : {110.0, 111.0}) {
        timeline.record(at(s, 0, 0, 0, 3.0, 0.0));
        timeline.recordKey(qint64(s * 1e6), 10, 10);
    }
    const auto expectGap = [](const Series &s) {
        ASSERT_EQ(s.t, (std::vector<double>{-11, -10, -5.5, -1, 0})) << s.name.toStdString();
        EXPECT_TRUE(std::isnan(s.value[2])) << s.name.toStdString();
        EXPECT_FALSE(std::isnan(s.value[1]) || std::isnan(s.value[3]));
    };
    expectGap(timeline.keySeries({}, 60)[0]);
    expectGap(timeline.keySeries(QStringLiteral("a"), 60)[1]);
    expectGap(timeline.requestSeries({}, 60)[0]);
    expectGap(timeline.keyTrail(60)[0]);
    expectGap(timeline.keyTrail(60)[1]);
    // A dropped connection that no refresh reported is a gap too.
    timeline.interrupt();
    timeline.record(at(120, 0, 0, 0));
    EXPECT_TRUE(std::isnan(timeline.keySeries({}, 60)[0].value[5]));
    EXPECT_EQ(timeline.keySeries({}, 60)[0].t[5], -4.5);
    // A window that starts after the gap shows none; a new connection starts without one.
    EXPECT_EQ(timeline.keySeries({}, 5)[0].t, (std::vector<double>{0}));
    timeline.clear();
    timeline.record(at(200, 1, 0, 0));
    timeline.record(at(201, 1, 0, 0));
    EXPECT_EQ(timeline.keySeries({}, 60)[0].t, (std::vector<double>{-1, 0}));
}

// A route with plans: its first target reads every plan's share; the chart of one plan's target
// shows that plan's requests, "All routes" the route's totals once.
TEST(MonitorTimeline, APlansTargetChartsItsPlansShareOfTheRoutesRequests)
{
    MonitorTimeline timeline;
    for (int second = 0; second < 3; ++second) {
        MonitorSnapshot s;
        s.serverTimeUs = qint64(100 + second) * 1'000'000;
        RouteStatus free, pro, monthlyPro;
        free.id = QStringLiteral("search/burst@free");
        free.allowedPerSecond = 30.0 + second;
        free.deniedPerSecond = 12.0;
        free.plans = {{QStringLiteral("free"), 10.0 + second, 12}, {QStringLiteral("pro"), 20, 0}};
        pro.id = QStringLiteral("search/burst@pro");
        monthlyPro.id = QStringLiteral("search/monthly@pro");
        s.routes = {free, pro, monthlyPro};
        timeline.record(s);
    }
    const std::vector<Series> all = timeline.requestSeries({}, 60);
    EXPECT_EQ(all[0].name, QStringLiteral("allowed"));
    EXPECT_EQ(all[0].value, (std::vector<double>{30, 31, 32})) << "the totals, once";
    const std::vector<Series> free
        = timeline.requestSeries(QStringLiteral("search/burst@free"), 60);
    EXPECT_EQ(free[0].name, QStringLiteral("allowed (free)"));
    EXPECT_EQ(free[0].value, (std::vector<double>{10, 11, 12}));
    EXPECT_EQ(free[1].value, (std::vector<double>{12, 12, 12}));
    const std::vector<Series> pro
        = timeline.requestSeries(QStringLiteral("search/monthly@pro"), 60);
    EXPECT_EQ(pro[1].name, QStringLiteral("denied (pro)"));
    EXPECT_EQ(pro[0].value, (std::vector<double>{20, 20, 20})) << "every limit's target of pro";
}
