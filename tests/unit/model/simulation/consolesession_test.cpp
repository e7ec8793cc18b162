// The test console answers as a gateway would: matched route, decision, status, headers.
#include "model/policy/policyreader.h"
#include "model/simulation/consolesession.h"
#include "tests/support/planfiles.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace qs;

namespace {

constexpr limiter::Micros kT0 = 1'700'000'000'000'000;

Policy loginPolicy(const char *mode)
{
    return readPolicy(QStringLiteral(R"(quota_studio: 1
name: shop
defaults: { status: 429, headers: both }
routes:
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
    mode: %1
)")
                          .arg(QLatin1String(mode))
                          .toUtf8(),
        QStringLiteral("t.yaml"))
        .policy;
}

QString header(const ConsoleResponse &r, const char *name)
{
    for (const auto &[n, v] : r.headers)
        if (n == QLatin1String(name))
            return v;
    return {};
}

} // namespace

TEST(ConsoleSession, AnswersLikeAGatewayForTheMatchedRoute)
{
    ConsoleSession session;
    session.setPolicy(loginPolicy("enforce"));
    ConsoleRequest req{QStringLiteral("POST"), QStringLiteral("/v1/login"),
        QStringLiteral("203.0.113.7"), 0, {}, {}};
    for (int i = 0; i < 10; ++i) {
        const ConsoleResponse ok = session.send(req, kT0);
        ASSERT_EQ(ok.status, 200) << i;
        EXPECT_EQ(ok.routeId, QStringLiteral("login"));
        EXPECT_EQ(ok.quotaAfter->remaining, 9 - i);
    }
    const ConsoleResponse denied = session.send(req, kT0);
    EXPECT_EQ(denied.status, 429);
    EXPECT_EQ(denied.decision.retryAfter, 500'000);
    EXPECT_EQ(header(denied, "Retry-After"), QStringLiteral("1")) << "whole seconds, rounded up";
    EXPECT_EQ(header(denied, "X-RateLimit-Remaining"), QStringLiteral("0"));
    EXPECT_FALSE(header(denied, "RateLimit-Policy").isEmpty());

    req.client = QStringLiteral("198.51.100.1");
    EXPECT_EQ(session.send(req, kT0).status, 200) << "another client has its own bucket";

    req.method = QStringLiteral("GET");
    EXPECT_FALSE(session.send(req, kT0).route) << "GET is not limited by a POST route";
}

TEST(ConsoleSession, ShadowRoutesCountButNeverReject)
{
    ConsoleSession session;
    session.setPolicy(loginPolicy("shadow"));
    const ConsoleRequest req{QStringLiteral("POST"), QStringLiteral("/v1/login"),
        QStringLiteral("203.0.113.7"), 10, {}, {}};
    EXPECT_EQ(session.send(req, kT0).status, 200);
    const ConsoleResponse r = session.send(req, kT0);
    EXPECT_FALSE(r.decision.allowed);
    EXPECT_TRUE(r.shadowed);
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(header(r, "Retry-After"), QString()) << "a passed request is not told to retry";
}

TEST(ConsoleSession, ARequestWithoutItsKeyHeaderFollowsMissingKey)
{
    const auto policy = [](const char *mode) {
        return readPolicy(QStringLiteral(R"(quota_studio: 1
name: shop
routes:
  - id: items
    match: { path: /v1/items }
    key: header:X-Api-Key
    missing_key: %1
    limit: { algorithm: fixed_window, limit: 2, window: 1m }
)")
                              .arg(QLatin1String(mode))
                              .toUtf8(),
            QStringLiteral("t.yaml"))
            .policy;
    };
    const auto send = [](ConsoleSession &s, const QString &client) {
        return s.send({QStringLiteral("GET"), QStringLiteral("/v1/items"), client, 0, {}, {}}, kT0);
    };
    ConsoleSession session;

    session.setPolicy(policy("shared"));
    EXPECT_EQ(send(session, QStringLiteral("192.0.2.1")).status, 200);
    EXPECT_EQ(send(session, QStringLiteral("192.0.2.2")).status, 200);
    const ConsoleResponse third = send(session, QStringLiteral("192.0.2.3"));
    EXPECT_EQ(third.status, 429) << "every keyless request shares one bucket";
    EXPECT_EQ(third.missingKeyParts, QStringList{QStringLiteral("header:X-Api-Key")});

    session.setPolicy(policy("ip"));
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(send(session, QStringLiteral("192.0.2.1")).status, 200);
    EXPECT_EQ(send(session, QStringLiteral("192.0.2.1")).status, 429);
    EXPECT_EQ(send(session, QStringLiteral("192.0.2.2")).status, 200) << "another address";

    session.setPolicy(policy("deny"));
    const ConsoleResponse denied = send(session, QStringLiteral("192.0.2.1"));
    EXPECT_EQ(denied.status, 429);
    EXPECT_FALSE(denied.counted);
    ConsoleRequest keyed{QStringLiteral("GET"), QStringLiteral("/v1/items"),
        QStringLiteral("192.0.2.1"), 0, {{QStringLiteral("X-Api-Key"), QStringLiteral("k1")}}, {}};
    EXPECT_EQ(session.send(keyed, kT0).status, 200);
    EXPECT_EQ(session.send(keyed, kT0).key, QStringLiteral("k1"));

    session.setPolicy(policy("allow"));
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(send(session, QStringLiteral("192.0.2.1")).status, 200);
}

// A burst limit per client address, a daily quota per API key and a shadow candidate: each
// limit counts under its own key, a denied request takes from none, and the answer names the
// limit that denied.
TEST(ConsoleSession, EveryLimitOfARouteDecidesUnderItsOwnKey)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: api
defaults: { headers: x-ratelimit }
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 2, refill: 1/min }
      - { name: daily, algorithm: fixed_window, limit: 3, window: 1d }
      - { name: candidate, algorithm: fixed_window, limit: 1, window: 1d, mode: shadow }
)",
        QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    ConsoleSession session;
    session.setPolicy(read.policy);
    const auto send = [&](const char *ip, limiter::Micros at) {
        ConsoleRequest r;
        r.target = QStringLiteral("/v1/search");
        r.client = QString::fromLatin1(ip);
        r.headers = {{QStringLiteral("X-Api-Key"), QStringLiteral("k1")}};
        return session.send(r, at);
    };
    const ConsoleResponse first = send("192.0.2.1", kT0);
    EXPECT_EQ(first.status, 200);
    ASSERT_EQ(first.limits.size(), 3);
    EXPECT_EQ(first.limits[0].key, "192.0.2.1");
    EXPECT_EQ(first.limits[1].key, "k1");
    EXPECT_TRUE(first.limits[2].shadow);
    EXPECT_EQ(first.decidingLimit, "burst"); // 1 left of 2, the daily has 2 of 3
    EXPECT_FALSE(first.shadowed);

    const ConsoleResponse second = send("192.0.2.1", kT0 + 1);
    EXPECT_EQ(second.status, 200);
    EXPECT_TRUE(second.shadowed) << "the candidate (1 a day) would have denied";
    EXPECT_FALSE(second.limits[2].decision.allowed);

    const ConsoleResponse third = send("192.0.2.1", kT0 + 2);
    EXPECT_EQ(third.status, 429);
    EXPECT_EQ(third.decidingLimit, "burst");
    EXPECT_TRUE(third.limits[1].decision.allowed) << "the daily quota alone would admit";
    EXPECT_EQ(header(third, "X-RateLimit-Remaining"), "0");

    // Another address with the same key: its own burst, the key's daily quota. The denied
    // request above took nothing from the daily quota, so one is left.
    const ConsoleResponse other = send("192.0.2.2", kT0 + 3);
    EXPECT_EQ(other.status, 200);
    EXPECT_EQ(other.decidingLimit, "daily");
    EXPECT_EQ(other.decision.remaining, 0);
    const ConsoleResponse over = send("192.0.2.2", kT0 + 4);
    EXPECT_EQ(over.status, 429);
    EXPECT_EQ(over.decidingLimit, "daily");
    EXPECT_TRUE(over.limits[0].decision.allowed);
    EXPECT_GT(header(over, "Retry-After").toLongLong(), 0);
}

// RateLimit-Policy and RateLimit carry one item per enforced limit (a shadow candidate is not
// the client's business); X-RateLimit-* and Retry-After are the deciding limit's.
TEST(ConsoleSession, SeveralLimitsAreOneHeaderItemEach)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: api
defaults: { headers: both }
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 2, refill: 1/s }
      - { name: daily, algorithm: fixed_window, limit: 100, window: 1d }
      - { name: candidate, algorithm: fixed_window, limit: 1, window: 1h, mode: shadow }
)",
        QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    ConsoleSession session;
    session.setPolicy(read.policy);
    ConsoleRequest r;
    r.target = QStringLiteral("/v1/search");
    const ConsoleResponse first = session.send(r, kT0);
    EXPECT_EQ(header(first, "RateLimit-Policy"), "\"burst\";q=2;w=2, \"daily\";q=100;w=86400");
    EXPECT_EQ(header(first, "RateLimit").toStdString(), "\"burst\";r=1;t=1, \"daily\";r=99;t=6400");
    EXPECT_EQ(header(first, "X-RateLimit-Limit").toStdString(), "2")
        << "the burst is nearest to denying";
    session.send(r, kT0);
    const ConsoleResponse denied = session.send(r, kT0);
    EXPECT_EQ(denied.status, 429);
    // t: the burst is whole in 2 s; the daily window is the clock's day (6400 s left at kT0).
    EXPECT_EQ(header(denied, "RateLimit").toStdString(), "\"burst\";r=0;t=2, \"daily\";r=98;t=6400")
        << "the daily quota kept nothing of the denied request";
    EXPECT_EQ(header(denied, "Retry-After"), "1");
}

// A calendar day in Santiago across the night its clocks go back: at 03:00 UTC on 2026-04-05
// the clock goes from 23:59:59 (-03) back to 23:00 (-04) on the 4th, so the 4th lasts 25 hours
// and the 5th starts at 04:00 UTC. The console's answer waits for that real local midnight, and
// the headers announce the long day.
TEST(ConsoleSession, ACalendarDayAnswersWithTheZonesRealMidnight)
{
    ConsoleSession session;
    session.setPolicy(readPolicy(R"(quota_studio: 1
name: calendar
defaults: { headers: both }
routes:
  - id: daily
    match: { path: /daily }
    limit: { algorithm: fixed_window, limit: 2, calendar: day, time_zone: America/Santiago }
)",
        QStringLiteral("t.yaml"))
                          .policy);
    const ConsoleRequest req{
        QStringLiteral("GET"), QStringLiteral("/daily"), QStringLiteral("203.0.113.7"), 0, {}, {}};
    constexpr limiter::Micros kHour = limiter::kMicrosPerHour;
    const limiter::Micros fifth = 1'775'361'600 * limiter::kMicrosPerSecond; // 04:00 UTC
    const limiter::Micros evening = fifth - 3 * kHour; // 22:00 on the 4th, -03
    EXPECT_EQ(session.send(req, evening).status, 200);
    EXPECT_EQ(session.send(req, evening).status, 200);
    const ConsoleResponse denied = session.send(req, evening);
    EXPECT_EQ(denied.status, 429);
    EXPECT_EQ(denied.decision.retryAfter, 3 * kHour) << "two hours on the clock, three in time";
    EXPECT_EQ(denied.decision.window, 25 * kHour);
    EXPECT_EQ(header(denied, "Retry-After"), QStringLiteral("10800"));
    EXPECT_TRUE(header(denied, "RateLimit-Policy").contains(QStringLiteral("w=90000")))
        << header(denied, "RateLimit-Policy").toStdString();
    // 23:30 on the 4th for the second time: still the 4th's window.
    EXPECT_EQ(session.send(req, fifth - 30 * limiter::kMicrosPerMinute).status, 429);
    const ConsoleResponse next = session.send(req, fifth);
    EXPECT_EQ(next.status, 200) << "the 5th began";
    EXPECT_EQ(next.decision.window, 24 * kHour);
}

namespace {

// Three plans found by the API key's entry in a map; a burst limit whose numbers differ by plan
// and a calendar month that enterprise is exempt from.
Policy plannedPolicy(QTemporaryDir &dir)
{
    const PolicyReadResult r = qs::test::readPolicyWithMap(dir, R"(quota_studio: 1
name: saas
plans:
  names: [free, pro, enterprise]
  from: { key: "header:X-Api-Key", map: plans.map }
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 2, refill: 1/s, plans: { pro: { capacity: 5 }, enterprise: unlimited } }
      - { name: monthly, algorithm: fixed_window, limit: 3, calendar: month, time_zone: Europe/Berlin, plans: { pro: { limit: 100 }, enterprise: unlimited } }
)",
        "k-free free\nk-pro pro\nk-ent enterprise\n");
    EXPECT_FALSE(hasErrors(r.diagnostics)) << qs::test::dump(r.diagnostics);
    return r.policy;
}

ConsoleRequest search(const QString &apiKey)
{
    return {QStringLiteral("GET"), QStringLiteral("/v1/search"), QStringLiteral("192.0.2.1"), 0,
        {{QStringLiteral("X-Api-Key"), apiKey}}, {}};
}

int admitted(ConsoleSession &s, const ConsoleRequest &r, int sent)
{
    int n = 0;
    for (int i = 0; i < sent; ++i)
        n += s.send(r, kT0).status == 200;
    return n;
}

} // namespace

TEST(ConsoleSession, EachPlanGetsItsNumbersAndItsOwnCounters)
{
    QTemporaryDir dir;
    ConsoleSession session;
    session.setPolicy(plannedPolicy(dir));

    const ConsoleResponse first = session.send(search(QStringLiteral("k-pro")), kT0);
    EXPECT_EQ(first.plan, QStringLiteral("pro"));
    ASSERT_EQ(first.limits.size(), 2);
    EXPECT_EQ(first.limits[0].key, QStringLiteral("pro:k-pro")) << "the plan is part of the key";
    EXPECT_EQ(first.limits[0].quotaAfter->limit, 5);
    EXPECT_EQ(first.limits[1].quotaAfter->limit, 100);
    EXPECT_EQ(admitted(session, search(QStringLiteral("k-pro")), 10), 4) << "pro's burst of 5";

    EXPECT_EQ(admitted(session, search(QStringLiteral("k-free")), 10), 2) << "free's burst of 2";
    // Free's month: 3, of which 2 are taken; the burst refills in a second.
    EXPECT_EQ(session.send(search(QStringLiteral("k-free")), kT0 + 1'000'000).status, 200);
    const ConsoleResponse monthOut
        = session.send(search(QStringLiteral("k-free")), kT0 + 3'000'000);
    EXPECT_EQ(monthOut.status, 429);
    EXPECT_EQ(monthOut.decidingLimit, QStringLiteral("monthly"));

    const ConsoleResponse ent = session.send(search(QStringLiteral("k-ent")), kT0);
    EXPECT_EQ(ent.plan, QStringLiteral("enterprise"));
    EXPECT_EQ(admitted(session, search(QStringLiteral("k-ent")), 50), 50);
    EXPECT_TRUE(ent.limits[0].unlimited);
    EXPECT_FALSE(ent.limits[0].counted);

    // An unknown key is on the default plan (free), counted under its own key.
    const ConsoleResponse stranger = session.send(search(QStringLiteral("k-who")), kT0);
    EXPECT_EQ(stranger.plan, QStringLiteral("free"));
    EXPECT_EQ(stranger.limits[0].key, QStringLiteral("free:k-who"));
}

TEST(ConsoleSession, APickedPlanDecidesInsteadOfTheRequests)
{
    QTemporaryDir dir;
    ConsoleSession session;
    session.setPolicy(plannedPolicy(dir));
    ConsoleRequest asPro = search(QStringLiteral("k-free"));
    asPro.plan = QStringLiteral("pro");
    const ConsoleResponse r = session.send(asPro, kT0);
    EXPECT_EQ(r.plan, QStringLiteral("pro"));
    EXPECT_EQ(r.limits[0].quotaAfter->limit, 5);
    EXPECT_EQ(r.limits[0].key, QStringLiteral("pro:k-free"));
}
