// The monitor's key table and read plan: what a refresh reads, in what order, and what a
// snapshot counts — without a Redis (the integration tests run them against one).
#include "model/monitor/keytable.h"
#include "model/monitor/readplan.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

KeyQuota quota(qint64 limit, qint64 remaining, bool throttled = false)
{
    KeyQuota q;
    q.status = KeyQuota::Status::Read;
    q.limit = limit;
    q.remaining = remaining;
    q.throttled = throttled;
    return q;
}

std::vector<QByteArray> planned(ReadPlan plan)
{
    std::vector<QByteArray> keys;
    for (; !plan.done(); plan.advance())
        keys.push_back(plan.next());
    return keys;
}

} // namespace

TEST(KeyTable, ForgettingMovesTheLastKeyIntoThePlaceAndKeepsTheIndexTrue)
{
    KeyTable t;
    for (const char *k : {"a", "b", "c", "d"})
        t.track(0, k);
    t.tailReadUpTo(2); // the tail goes on at "d"
    t.forget("b");
    ASSERT_EQ(t.size(), 3);
    EXPECT_EQ(t.at(1).key, "d");
    for (const char *k : {"a", "c", "d"})
        EXPECT_EQ(t.at(t.indexOf(k)).key, k);
    EXPECT_EQ(t.indexOf("b"), -1);
    EXPECT_EQ(t.tailStart(), 0); // position 3 is gone: the rotation starts over
    t.forget("nothing"); // not tracked: no change
    EXPECT_EQ(t.size(), 3);
}

TEST(KeyTable, StoreKeepsWhenTheNumbersLastChangedAndWhyAKeyIsUnreadable)
{
    KeyTable t;
    const qint32 i = t.track(0, "k");
    t.store(i, quota(10, 5), 1000);
    t.store(i, quota(10, 5), 2000);
    EXPECT_EQ(t.at(i).changedAtUs, 1000);
    EXPECT_EQ(t.at(i).readAtUs, 2000);
    t.store(i, quota(10, 4), 3000);
    EXPECT_EQ(t.at(i).changedAtUs, 3000);
    t.store(i, KeyQuota::unreadable("a list, not a string"), 4000);
    EXPECT_EQ(t.why("k"), "a list, not a string");
    t.store(i, quota(10, 4), 5000);
    EXPECT_EQ(t.why("k"), QString());
}

TEST(KeyTable, SummaryCountsPerRouteAndListsTheHottestFirst)
{
    KeyTable t;
    t.store(t.track(0, "cool"), quota(100, 90), 1);
    t.store(t.track(0, "warm"), quota(100, 20), 1);
    t.store(t.track(1, "refused"), quota(10, 0, true), 1);
    t.store(t.track(1, "odd"), KeyQuota::unreadable("a hash without `tokens`"), 1);
    t.track(1, "unread");
    MonitorSnapshot s;
    s.routes.resize(2);
    s.routes[0].id = "r0";
    s.routes[1].id = "r1";
    t.summarize(s, 2, 20);
    EXPECT_EQ(s.routes[0].keys, 2);
    EXPECT_EQ(s.routes[1].keys, 3);
    EXPECT_EQ(s.routes[1].throttled, 1);
    EXPECT_EQ(s.routes[1].unreadable, 1);
    ASSERT_EQ(s.hotKeys.size(), 2);
    EXPECT_EQ(s.hotKeys[0].key, "refused");
    EXPECT_EQ(s.hotKeys[0].route, "r1");
    EXPECT_EQ(s.hotKeys[1].key, "warm");
    ASSERT_EQ(s.unreadable.size(), 1);
    EXPECT_EQ(s.unreadable[0].why, "a hash without `tokens`");
    EXPECT_EQ(t.rows().size(), 4u); // the unread key has no row yet
}

TEST(ReadPlan, HotKeysHottestFirstThenNewKeysThenTheTailFromWhereItStopped)
{
    KeyTable t;
    for (int i = 0; i < 5; ++i)
        t.store(t.track(0, "tail" + QByteArray::number(i)), quota(100, 80), 1);
    t.store(t.track(0, "hot"), quota(100, 5), 1); // within 10% of the limit
    t.store(t.track(0, "hotter"), quota(100, 1), 1);
    t.track(0, "new");
    t.tailReadUpTo(2); // the last refresh read the tail up to tail2
    ReadPlan plan;
    plan.build(t, 7, 100, true);
    EXPECT_EQ(planned(plan),
        (std::vector<QByteArray>{
            "hotter", "hot", "new", "tail3", "tail4", "tail0", "tail1", "tail2"}));

    plan.build(t, 7, 4, true); // a budget for four keys: the hot and new win
    EXPECT_EQ(planned(plan), (std::vector<QByteArray>{"hotter", "hot", "new", "tail3"}));

    plan.build(t, 7, 100, false); // the first walk, no budget: no tail yet
    EXPECT_EQ(planned(plan), (std::vector<QByteArray>{"hotter", "hot", "new"}));

    t.at(t.indexOf("hot")).readIn = 8; // read this refresh already, as a SCAN found it
    plan.build(t, 8, 100, false);
    EXPECT_EQ(planned(plan), (std::vector<QByteArray>{"hotter", "new"}));
}
