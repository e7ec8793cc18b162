#include "model/ratesyntax.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::limiter;

TEST(RateSyntax, ParsesTheDocumentedForms)
{
    const auto rate = [](const char *t) { return std::get<Rate>(parseRate(QLatin1String(t))); };
    EXPECT_EQ(rate("2/s").count, 2);
    EXPECT_EQ(rate("2/s").period, kMicrosPerSecond);
    EXPECT_EQ(rate("100/min").period, kMicrosPerMinute);
    EXPECT_EQ(rate("1000/h").period, kMicrosPerHour);
    EXPECT_EQ(rate("5/250ms").period, 250 * kMicrosPerMilli);
    EXPECT_EQ(rate("10 / 1m").period, kMicrosPerMinute);
    EXPECT_EQ(rate("7/day").period, kMicrosPerDay);
    const auto duration
        = [](const char *t) { return std::get<Micros>(parseDuration(QLatin1String(t))); };
    EXPECT_EQ(duration("250ms"), 250'000);
    EXPECT_EQ(duration("10s"), 10 * kMicrosPerSecond);
    EXPECT_EQ(duration("1d"), kMicrosPerDay);
}

TEST(RateSyntax, RejectsWithAReason)
{
    for (const char *bad : {"2", "x/s", "2/", "2/fortnight", "-1/s", "0/s", "2/0s", "1.5/s"})
        EXPECT_TRUE(std::holds_alternative<QString>(parseRate(QLatin1String(bad)))) << bad;
    for (const char *bad : {"10", "1.5m", "0s", "-3s", "5 parsecs", "400d"})
        EXPECT_TRUE(std::holds_alternative<QString>(parseDuration(QLatin1String(bad)))) << bad;
}

TEST(RateSyntax, FormatsCanonically)
{
    EXPECT_EQ(formatRate(Rate{2, kMicrosPerSecond}), QStringLiteral("2/s"));
    EXPECT_EQ(formatRate(Rate{5, 250 * kMicrosPerMilli}), QStringLiteral("5/250ms"));
    EXPECT_EQ(formatRate(Rate{100, kMicrosPerMinute}), QStringLiteral("100/m"));
    EXPECT_EQ(formatDuration(90 * kMicrosPerSecond), QStringLiteral("90s"));
    for (const char *t : {"2/s", "5/250ms", "100/m", "3/2h"})
        EXPECT_EQ(formatRate(std::get<Rate>(parseRate(QLatin1String(t)))), QLatin1String(t));
}
