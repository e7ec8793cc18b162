// The read budget's promise: never more than N commands in any one-second window — checked over
// every window of a random trace, not only aligned ones — and all of it usable.
#include "model/monitor/readbudget.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>

using namespace qs;

TEST(ReadBudget, NeverMoreThanTheBudgetInAnySecond)
{
    ReadBudget budget(500);
    std::mt19937_64 random(7);
    std::deque<std::pair<qint64, qint64>> window; // (time, granted) of the last second
    qint64 inWindow = 0, total = 0, t = 0;
    for (int i = 0; i < 20'000; ++i) {
        t += qint64(random() % 3000);
        const qint64 granted = budget.take(qint64(random() % 200), t);
        ASSERT_GE(granted, 0);
        while (!window.empty() && window.front().first <= t - 1'000'000) {
            inWindow -= window.front().second;
            window.pop_front();
        }
        window.emplace_back(t, granted);
        inWindow += granted;
        total += granted;
        ASSERT_LE(inWindow, 500) << "at " << t << " µs";
    }
    // And the budget is spent, not hoarded: over ~30 s at least 28 s worth was granted.
    EXPECT_GE(total, 500 * (t / 1'000'000 - 2));
}

TEST(ReadBudget, ZeroMeansNoBudget)
{
    ReadBudget none(0);
    EXPECT_EQ(none.take(1'000'000, 0), 1'000'000);
    EXPECT_EQ(none.take(1'000'000, 1), 1'000'000);
}

TEST(ReadBudget, GrantsWhatIsLeftAndRefillsAsTheSecondSlides)
{
    ReadBudget b(10);
    EXPECT_EQ(b.take(7, 0), 7);
    EXPECT_EQ(b.take(7, 100'000), 3);
    EXPECT_EQ(b.available(999'999), 0);
    EXPECT_EQ(b.available(1'000'000), 7); // the first 7 left the window
    EXPECT_EQ(b.available(1'100'000), 10);
}

TEST(ReadBudget, ALowerBudgetStillCountsTheLastSecond)
{
    ReadBudget b(100);
    EXPECT_EQ(b.take(80, 0), 80);
    b.setPerSecond(50);
    EXPECT_EQ(b.available(500'000), 0) << "80 were sent in this second already";
    EXPECT_EQ(b.available(1'000'000), 50);
    b.setPerSecond(0);
    EXPECT_EQ(b.take(1000, 1'000'001), 1000);
    b.setPerSecond(10);
    EXPECT_EQ(b.take(20, 1'000'002), 10) << "nothing was logged without a budget";
}
