// The test console answers as a gateway would: matched route, decision, status, headers.
#include "model/simulation/consolesession.h"
#include "model/policy/policyreader.h"

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
    ConsoleRequest req{
        QStringLiteral("POST"), QStringLiteral("/v1/login"), QStringLiteral("203.0.113.7"), 0};
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
    const ConsoleRequest req{
        QStringLiteral("POST"), QStringLiteral("/v1/login"), QStringLiteral("203.0.113.7"), 10};
    EXPECT_EQ(session.send(req, kT0).status, 200);
    const ConsoleResponse r = session.send(req, kT0);
    EXPECT_FALSE(r.decision.allowed);
    EXPECT_TRUE(r.shadowed);
    EXPECT_EQ(r.status, 200);
}

TEST(ConsoleSession, EngineKeysJoinTheKeyParts)
{
    EXPECT_EQ(
        ConsoleSession::engineKey(
            {{KeySelector::Kind::Ip, {}}, {KeySelector::Kind::Global, {}}}, QStringLiteral("a")),
        QStringLiteral("a|all"));
}
