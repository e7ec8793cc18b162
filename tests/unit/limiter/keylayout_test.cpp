// The key layout (limiter/redis/keylayout.h): the names every part of Quota Studio builds and
// recognises, checked where each part produces or reads them. A part that built a key by hand
// in another shape would fail here, not in a deployment.
#include "limiter/redis/keylayout.h"
#include "limiter/redis/routemetrics.h"

#include <gtest/gtest.h>

namespace qs::limiter {
namespace {

TEST(KeyLayout, RouteStateAndMetricsKeys)
{
    const std::string route = keylayout::routePrefix("qs", "search");
    EXPECT_EQ(route, "qs:search");
    EXPECT_EQ(keylayout::stateKey(route, "ip:10.0.0.1"), "qs:search:ip:10.0.0.1");
    EXPECT_EQ(keylayout::metricsPrefix(route), "qs:search:~metrics");
    EXPECT_EQ(keylayout::metricsKey(route, 1765000000), "qs:search:~metrics:1765000000");
}

TEST(KeyLayout, AStateKeyIsNeitherAMetricsHashNorAnotherRoutesKey)
{
    const std::string route = keylayout::routePrefix("qs", "search");
    EXPECT_TRUE(keylayout::isStateKey(keylayout::stateKey(route, "k"), route));
    EXPECT_TRUE(keylayout::isStateKey("qs:search:~metricsish", route)) << "a client key";
    EXPECT_FALSE(keylayout::isStateKey(keylayout::metricsKey(route, 1), route));
    EXPECT_FALSE(keylayout::isStateKey("qs:search2:k", route)) << "another route";
    EXPECT_FALSE(keylayout::isStateKey("qs:search:", route)) << "no client";
    EXPECT_FALSE(keylayout::isStateKey("qs:search", route));
}

TEST(KeyLayout, TheBackendsMetricsCountsGoToTheLayoutsKeys)
{
    RouteMetrics metrics;
    const std::string route = keylayout::routePrefix("qs", "login");
    metrics.count(route, 41, true);
    metrics.count(route, 41, false);
    const std::vector<RouteMetrics::Count> counts = metrics.take();
    ASSERT_EQ(counts.size(), 1u);
    EXPECT_EQ(counts[0].key, keylayout::metricsKey(route, 41));
    EXPECT_EQ(counts[0].allowed, 1);
    EXPECT_EQ(counts[0].denied, 1);
}

TEST(KeyLayout, APlansShareCountsInItsOwnFieldsBesideTheRoutesTotals)
{
    RouteMetrics metrics;
    const std::string route = keylayout::routePrefix("qs", "search");
    metrics.count(route, 7, true, "pro");
    metrics.count(route, 7, false, "free");
    metrics.count(route, 7, false, "free");
    metrics.count(route, 7, true, "enterprise");
    metrics.count(route, 8, true, "pro"); // the next second: another hash
    const std::vector<RouteMetrics::Count> counts = metrics.take(8);
    ASSERT_EQ(counts.size(), 1u);
    EXPECT_EQ(counts[0].allowed, 2);
    EXPECT_EQ(counts[0].denied, 2);
    ASSERT_EQ(counts[0].plans.size(), 3u);
    EXPECT_EQ(counts[0].plans[0].plan, "pro");
    EXPECT_EQ(counts[0].plans[0].allowed, 1);
    EXPECT_EQ(counts[0].plans[1].plan, "free");
    EXPECT_EQ(counts[0].plans[1].denied, 2);
    EXPECT_EQ(keylayout::planField(keylayout::kDeniedField, "free"), "d:free");
    EXPECT_EQ(metrics.take().size(), 1u) << "second 8 was kept for later";
}

} // namespace
} // namespace qs::limiter
