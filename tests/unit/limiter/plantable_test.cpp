// The plan map's table: every value finds its plan, nothing else finds one, whatever the size.
#include "limiter/engine/plantable.h"

#include <gtest/gtest.h>

#include <string>

using qs::limiter::PlanTable;

TEST(PlanTable, TenThousandKeysEachFindTheirPlanAndNoOtherValueFindsOne)
{
    PlanTable table;
    for (int i = 0; i < 10'000; ++i)
        ASSERT_TRUE(table.insert("k-" + std::to_string(i), PlanTable::Plan(i % 3)));
    EXPECT_EQ(table.size(), 10'000u);
    for (int i = 0; i < 10'000; ++i)
        ASSERT_EQ(table.find("k-" + std::to_string(i)), PlanTable::Plan(i % 3)) << i;
    for (int i = 10'000; i < 20'000; ++i)
        ASSERT_EQ(table.find("k-" + std::to_string(i)), PlanTable::kNoPlan) << i;
    EXPECT_EQ(table.find(""), PlanTable::kNoPlan);
    EXPECT_EQ(table.find("k-1 "), PlanTable::kNoPlan) << "bytes compare exactly";
    EXPECT_EQ(table.find("K-1"), PlanTable::kNoPlan);
}

TEST(PlanTable, AValueKeepsItsFirstPlan)
{
    PlanTable table;
    EXPECT_TRUE(table.insert("alpha", 1));
    EXPECT_FALSE(table.insert("alpha", 2));
    EXPECT_EQ(table.find("alpha"), 1);
    EXPECT_EQ(table.size(), 1u);
}

TEST(PlanTable, EmptyAndLongValuesAndBytesOfAnyKindAreKept)
{
    PlanTable table;
    const std::string zero("a\0b", 3);
    const std::string longest(PlanTable::kMaxValueLength, 'x');
    EXPECT_FALSE(table.insert("", 0)) << "a map line has no empty value";
    EXPECT_TRUE(table.insert(zero, 1));
    EXPECT_TRUE(table.insert(longest, 2));
    EXPECT_FALSE(table.insert(longest + "x", 2)) << "longer than a slot records";
    EXPECT_FALSE(table.insert("no-plan", PlanTable::kNoPlan));
    EXPECT_EQ(table.find(""), PlanTable::kNoPlan);
    EXPECT_EQ(table.find(zero), 1);
    EXPECT_EQ(table.find(std::string("a")), PlanTable::kNoPlan);
    EXPECT_EQ(table.find(longest), 2);
}
