// Discover's fingerprints: each rate limiter's key names, as its source writes them, map to its
// preset and to a glob that groups one family; unknown keys group by their fixed leading part.
#include "model/monitor/keyspacesurvey.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

void expectShape(const QByteArray &key, const QByteArray &pattern, const QString &preset,
    const QByteArray &qsPrefix = "qs")
{
    const KeyShape s = shapeOfKey(key, qsPrefix);
    EXPECT_EQ(s.pattern, pattern) << key.toStdString();
    EXPECT_EQ(s.preset, preset) << key.toStdString();
}

} // namespace

TEST(KeyShape, KnownRateLimitersByName)
{
    expectShape("qs:login:203.0.113.7", "qs:login:*", "quota-studio");
    expectShape("prod:login:2001:db8::1", "prod:login:*", "quota-studio", "prod");
    expectShape("qs:login:~metrics:1760000000", "qs:login:~metrics:*", "quota-studio");
    expectShape("LIMITER/127.0.0.1/app.home/10/1/minute", "LIMITER/*/10/1/minute", "python-limits");
    expectShape("LIMITS:LIMITER/k/5/2/hour", "LIMITS:LIMITER/*/5/2/hour", "python-limits");
    expectShape(
        "ratelimit:0d6b6bd6-8a1c-4f2e-9d6e-6c4c7a1c0b11:00000000-0000-0000-0000-000000000000:"
        "2001:db8::7:1764770460000:minute",
        "ratelimit:*:minute", "kong");
    expectShape(
        "apis_remote_address_10.1.2.3_1719849600", "apis_remote_address_*", "envoy-ratelimit");
    expectShape("rate:user:42", "rate:*", "redis_rate");
    expectShape("request_rate_limiter.{route1.alice}.tokens", "request_rate_limiter.*.tokens",
        "spring-cloud-gateway");
    expectShape("rl:2001:db8:abcd:1200::/56", "rl:*", "express-rate-limit");
    expectShape("rlflx:alice", "rlflx:*", QString());
}

TEST(KeyShape, UnknownKeysGroupByTheirFixedPart)
{
    expectShape("session:8f14e45fceea167a5a36dedd4bea2543", "session:*", QString());
    expectShape("rate_limit:alice", "rate_limit:*", QString());
    expectShape("user:42:profile", "user:*", QString());
    expectShape("cache/v2/items/981", "cache/v2/items/*", QString());
    expectShape("config", "config", QString());
    expectShape("app1:cache:7", "app1:cache:*", QString());
    // No 10-digit window start, so not envoy; no separator: a fixed name is its own family, a
    // number-like one joins the catch-all.
    expectShape("a_b_c_1234", "a_b_c_1234", QString());
    expectShape("1764770460", "*", QString());
}
