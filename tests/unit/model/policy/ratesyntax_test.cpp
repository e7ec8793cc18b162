#include "model/policy/keyselectorsyntax.h"
#include "model/policy/policy.h"
#include "model/policy/ratesyntax.h"

#include <gtest/gtest.h>

using namespace qs;
using namespace qs::limiter;

TEST(RateSyntax, ParsesTheDocumentedForms)
{
    const auto rate = [](const char *t) { return *parseRate(QLatin1String(t)); };
    EXPECT_EQ(rate("2/s").count, 2);
    EXPECT_EQ(rate("2/s").period, kMicrosPerSecond);
    EXPECT_EQ(rate("100/min").period, kMicrosPerMinute);
    EXPECT_EQ(rate("1000/h").period, kMicrosPerHour);
    EXPECT_EQ(rate("5/250ms").period, 250 * kMicrosPerMilli);
    EXPECT_EQ(rate("10 / 1m").period, kMicrosPerMinute);
    EXPECT_EQ(rate("7/day").period, kMicrosPerDay);
    const auto duration = [](const char *t) { return *parseDuration(QLatin1String(t)); };
    EXPECT_EQ(duration("250ms"), 250'000);
    EXPECT_EQ(duration("10s"), 10 * kMicrosPerSecond);
    EXPECT_EQ(duration("1d"), kMicrosPerDay);
}

TEST(RateSyntax, DecimalCountsAndEveryAreExact)
{
    const auto rate = [](const char *t) { return *parseRate(QLatin1String(t)); };
    // 0.5/s once became 5/s in the editor: a limit ten times looser. It is one per 2 s.
    EXPECT_EQ(rate("0.5/s").count, 1);
    EXPECT_EQ(rate("0.5/s").period, 2 * kMicrosPerSecond);
    EXPECT_EQ(rate("2.5/s").count, 5);
    EXPECT_EQ(rate("2.5/s").period, 2 * kMicrosPerSecond);
    EXPECT_EQ(rate("0.25/min").period, 4 * kMicrosPerMinute);
    EXPECT_EQ(rate("1 every 2 s").count, 1);
    EXPECT_EQ(rate("1 every 2 s").period, 2 * kMicrosPerSecond);
    EXPECT_EQ(rate("3 every 250ms").period, 250 * kMicrosPerMilli);
    EXPECT_EQ(rate("30/min").count, 30);
    EXPECT_EQ(describeRate(rate("0.5/s")), QStringLiteral("1 request every 2 s"));
    EXPECT_EQ(describeRate(rate("5/250ms")), QStringLiteral("20 requests per second"));
    EXPECT_EQ(describeRate(rate("30/h")), QStringLiteral("30 requests per hour"));
    EXPECT_EQ(describeRate(rate("7/90s")), QStringLiteral("7 requests every 1.5 min"));
    EXPECT_EQ(describeRate(rate("1/s")), QStringLiteral("1 request per second"));
    EXPECT_EQ(describeRate(rate("2/s")), QStringLiteral("2 requests per second"));
    EXPECT_EQ(formatDurationInWords(12'500'000), QStringLiteral("12.5 s"));
}

TEST(RateSyntax, RejectsWithAReason)
{
    for (const char *bad : {"2", "x/s", "2/", "2/fortnight", "-1/s", "0/s", "2/0s", "0.0/s",
             "1.5.2/s", ".5/s", "0.0000001/s", "1 every", "every 2s", "0.001/d"})
        EXPECT_FALSE(parseRate(QLatin1String(bad)).hasValue()) << bad;
    for (const char *bad : {"10", "1.5m", "0s", "-3s", "5 parsecs", "400d"})
        EXPECT_FALSE(parseDuration(QLatin1String(bad)).hasValue()) << bad;
}

TEST(RateSyntax, FormatsCanonically)
{
    EXPECT_EQ(formatRate(Rate{2, kMicrosPerSecond}), QStringLiteral("2/s"));
    EXPECT_EQ(formatRate(Rate{5, 250 * kMicrosPerMilli}), QStringLiteral("5/250ms"));
    EXPECT_EQ(formatRate(Rate{100, kMicrosPerMinute}), QStringLiteral("100/m"));
    EXPECT_EQ(formatDuration(90 * kMicrosPerSecond), QStringLiteral("90s"));
    for (const char *t : {"2/s", "5/250ms", "100/m", "3/2h"})
        EXPECT_EQ(formatRate(*parseRate(QLatin1String(t))), QLatin1String(t));
}

// The editor's key-list form: commas between selectors, the first problem reported, and the
// same text back.
TEST(KeySelectorList, ParsesFormatsAndReportsTheFirstProblem)
{
    const auto keys = qs::parseKeySelectorList(QStringLiteral(" header:X-Api-Key ,ip"));
    ASSERT_TRUE(keys.hasValue());
    const auto &list = *keys;
    ASSERT_EQ(list.size(), 2);
    EXPECT_EQ(list[0].kind, qs::KeySelector::Kind::Header);
    EXPECT_EQ(qs::formatKeySelectorList(list), QStringLiteral("header:X-Api-Key, ip"));
    const auto bad = qs::parseKeySelectorList(QStringLiteral("ip, header:, query:q"));
    ASSERT_FALSE(bad.hasValue());
    EXPECT_TRUE(bad.error().contains(QStringLiteral("header name")));
    EXPECT_TRUE(qs::parseKeySelectorList(QString())->isEmpty());
}

TEST(FieldOrder, ANewFieldGoesWhereAskedAndAnOldOneStays)
{
    QStringList order{QStringLiteral("id"), QStringLiteral("match"), QStringLiteral("limit")};
    qs::rememberField(order, QStringLiteral("key"), order.indexOf(QStringLiteral("limit")));
    qs::rememberField(order, QStringLiteral("cost"));
    qs::rememberField(order, QStringLiteral("id"), 2);
    qs::rememberField(order, QStringLiteral("mode"), -1);
    EXPECT_EQ(order, (QStringList{"id", "match", "key", "limit", "cost", "mode"}));
}
