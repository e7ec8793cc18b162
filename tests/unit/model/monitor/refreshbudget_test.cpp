// How a monitor's refresh spends its budget: the shares of scans and reads, the carry-over of an
// expensive SCAN, the in-flight window; and what a SCAN costs, from the server's own accounting.
#include "model/monitor/refreshbudget.h"
#include "model/monitor/scancost.h"

#include <gtest/gtest.h>

using namespace qs;

TEST(RefreshBudget, ScansTakeAFifthHalfWhileDiscoveringAndReadsTheRest)
{
    RefreshBudget b;
    b.reset(2000); // the window is 100: the log allows 1900 per second
    EXPECT_EQ(b.perSecond(), 1900);
    EXPECT_EQ(b.inFlightWindow(), 100);
    const qint64 perRefresh = b.perRefresh(1000);
    EXPECT_EQ(perRefresh, 1900);

    b.beginRefresh(perRefresh, true, false, 3, 10);
    EXPECT_EQ(b.readsLeft(), 1900 - 3 - 380);
    b.beginRefresh(perRefresh, true, true, 3, 10);
    EXPECT_EQ(b.readsLeft(), 1900 - 3 - 950);
    b.beginRefresh(perRefresh, false, true, 3, 10);
    EXPECT_EQ(b.readsLeft(), 1900 - 3);

    // Scans done: their share goes to reads; reads done: theirs may scan.
    b.beginRefresh(perRefresh, true, false, 0, 10);
    b.scansNeedNoMore();
    EXPECT_EQ(b.readsLeft(), 1900);
    b.readsNeedNoMore();
    EXPECT_EQ(b.readsLeft(), 0);
    EXPECT_TRUE(b.mayScan(1900, 0));
}

TEST(RefreshBudget, AScanDearerThanAShareIsPaidForOverSeveralRefreshes)
{
    RefreshBudget b;
    b.reset(2000);
    const qint64 oneScan = 1000; // a SCAN over a large keyspace, in reads
    qint64 t = 0;
    int refreshes = 0;
    for (; refreshes < 10; ++refreshes, t += 1'000'000) {
        b.beginRefresh(b.perRefresh(1000), true, false, 0, oneScan);
        if (b.mayScan(oneScan, t))
            break;
        b.endRefresh(true); // still scanning: the unspent share carries over
    }
    EXPECT_EQ(refreshes, 2) << "the third refresh: 380 of its own and 760 carried, >= 1000";
    // Carried at most one SCAN's worth, however long the scans wait.
    b.endRefresh(true);
    b.beginRefresh(b.perRefresh(1000), true, false, 0, 10);
    EXPECT_FALSE(b.mayScan(380 + 11, t + 1'000'000));
}

TEST(RefreshBudget, TheWindowBoundsWhatIsInFlight)
{
    RefreshBudget b;
    b.reset(200); // window 10
    for (int i = 0; i < 10; ++i)
        b.sent();
    EXPECT_FALSE(b.windowAllows(1));
    EXPECT_FALSE(b.windowHalfDrained());
    for (int i = 0; i < 5; ++i)
        b.answered();
    EXPECT_TRUE(b.windowHalfDrained());
    EXPECT_TRUE(b.windowAllows(5));
    EXPECT_EQ(b.peakInFlight(), 10);

    RefreshBudget none;
    none.reset(0);
    EXPECT_TRUE(none.unlimited());
    EXPECT_EQ(none.inFlightWindow(), RefreshBudget::kMaxInFlight);
    EXPECT_TRUE(none.mayRead(1'000'000, 0));
}

TEST(ScanCost, CommandStatsAreSummedPerCommand)
{
    const QByteArray info = "# Commandstats\r\n"
                            "cmdstat_get:calls=10,usec=20,usec_per_call=2.00\r\n"
                            "cmdstat_hmget:calls=5,usec=15,usec_per_call=3.00\r\n"
                            "cmdstat_scan:calls=2,usec=400,usec_per_call=200.00\r\n"
                            "cmdstat_getex:calls=99,usec=99\r\n";
    const CommandCost reads = commandCost(info, {"get", "hmget"});
    EXPECT_EQ(reads.calls, 15);
    EXPECT_EQ(reads.usec, 35);
    EXPECT_EQ(commandCost(info, {"scan"}).usec, 400);
    EXPECT_EQ(commandCost(info, {"info"}).calls, 0);
}

TEST(ScanCost, BucketsAreChargedWhatTheServerSaysTheyCost)
{
    ScanCost cost;
    EXPECT_EQ(cost.cost(1000), 1000); // until measured: a read per bucket
    cost.dbSizeAnswered(300);
    EXPECT_EQ(cost.cost(1000), 300); // a table smaller than COUNT is walked whole

    const auto stats = [](qint64 reads, qint64 readUs, qint64 scans, qint64 scanUs) {
        return "cmdstat_get:calls=" + QByteArray::number(reads) + ",usec="
            + QByteArray::number(readUs) + "\r\ncmdstat_scan:calls=" + QByteArray::number(scans)
            + ",usec=" + QByteArray::number(scanUs) + "\r\ncmdstat_info:calls=1,usec=50\r\n";
    };
    ASSERT_TRUE(cost.due(0));
    cost.infoAnswered(stats(1000, 1000, 0, 0), cost.beginMeasuring(0)); // the first sample
    EXPECT_FALSE(cost.due(ScanCost::kEveryUs - 1));
    for (int i = 0; i < 4; ++i)
        cost.sent(1000); // 300 buckets each (DBSIZE)
    // Since then: 1000 reads of 1 µs, 4 SCANs of 600 µs over 300 buckets: 2 reads per bucket.
    cost.infoAnswered(stats(2000, 2000, 4, 2400), cost.beginMeasuring(ScanCost::kEveryUs));
    EXPECT_EQ(cost.cost(1000), 600);
    EXPECT_EQ(cost.infoCost(), 50);
    // A budget of 400 per second: a SCAN must fit in half of it, 100 buckets at 2 reads each.
    EXPECT_EQ(cost.count(400, 1000), 100);
    EXPECT_EQ(cost.count(0, 1000), 1000);

    cost.infoRefused();
    EXPECT_FALSE(cost.due(100 * ScanCost::kEveryUs));
}
