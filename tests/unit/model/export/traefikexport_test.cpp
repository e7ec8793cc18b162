// Traefik export: parsed back with yaml-cpp and checked against the structure Traefik
// documents (http.routers / http.middlewares.<name>.rateLimit); hostile names stay values.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

using namespace qs;

namespace {

YAML::Node exportYaml(const Policy &p, Diagnostics *diagnostics = nullptr)
{
    const ExportResult r = exporterById(QStringLiteral("traefik"))->exportPolicy(p);
    if (diagnostics)
        *diagnostics = r.diagnostics;
    if (r.files.empty())
        return {};
    return YAML::Load(r.files.front().content.toStdString());
}

} // namespace

TEST(TraefikExport, TokenBucketBecomesARateLimitMiddlewareOnItsRouter)
{
    const Policy p = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: login
    match: { methods: [POST, PUT], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
  - id: api
    match: { path: /v1/** }
    key: header:X-Api-Key
    limit: { algorithm: gcra, rate: 100/min, burst: 20 }
)",
        QStringLiteral("t.yaml"))
                         .policy;
    Diagnostics d;
    const YAML::Node y = exportYaml(p, &d);
    EXPECT_TRUE(d.isEmpty()) << "token bucket and GCRA are exact in Traefik";
    const YAML::Node login = y["http"]["routers"]["qs-login"];
    EXPECT_EQ(login["rule"].as<std::string>(),
        "PathRegexp(`^/v1/login/?$`) && (Method(`POST`) || Method(`PUT`))");
    EXPECT_EQ(login["service"].as<std::string>(), "qs-backend");
    EXPECT_EQ(login["middlewares"][0].as<std::string>(), "qs-login-ratelimit");
    EXPECT_GT(login["priority"].as<int>(), y["http"]["routers"]["qs-api"]["priority"].as<int>())
        << "the more specific route is tried first";
    const YAML::Node rl = y["http"]["middlewares"]["qs-login-ratelimit"]["rateLimit"];
    EXPECT_EQ(rl["average"].as<int>(), 2);
    EXPECT_EQ(rl["period"].as<std::string>(), "1s");
    EXPECT_EQ(rl["burst"].as<int>(), 10);
    EXPECT_EQ(rl["sourceCriterion"]["ipStrategy"]["depth"].as<int>(), 0);
    const YAML::Node api = y["http"]["middlewares"]["qs-api-ratelimit"]["rateLimit"];
    EXPECT_EQ(api["average"].as<int>(), 100);
    EXPECT_EQ(api["period"].as<std::string>(), "1m");
    EXPECT_EQ(api["sourceCriterion"]["requestHeaderName"].as<std::string>(), "X-Api-Key");
    EXPECT_EQ(
        y["http"]["services"]["qs-backend"]["loadBalancer"]["servers"][0]["url"].as<std::string>(),
        "http://127.0.0.1:8081");
}

TEST(TraefikExport, WhatTraefikCannotExpressIsNeverSilentlyDropped)
{
    const Policy p = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: shadowed
    match: { path: /a }
    mode: shadow
    limit: { algorithm: leaky_bucket, rate: 5/s, queue: 10, mode: shape }
)",
        QStringLiteral("t.yaml"))
                         .policy;
    Diagnostics d;
    const YAML::Node y = exportYaml(p, &d);
    // The limit is left out whole, and said so once: how it would have been approximated
    // does not matter then.
    ASSERT_EQ(d.size(), 1);
    EXPECT_TRUE(d[0].message.contains(QStringLiteral("no dry-run")));
    EXPECT_FALSE(y["http"]["routers"]["qs-shadowed"]["middlewares"])
        << "a shadow route must never reject";
    Policy enforced = p;
    enforced.routes[0].mode.reset();
    exportYaml(enforced, &d);
    ASSERT_EQ(d.size(), 1);
    EXPECT_TRUE(d[0].message.contains(QStringLiteral("does not shape")));

    Policy query = p;
    query.routes[0].mode.reset();
    query.routes[0].key = QList<KeySelector>{{KeySelector::Kind::Query, QStringLiteral("token")}};
    exportYaml(query, &d);
    EXPECT_TRUE(hasErrors(d));
}

TEST(TraefikExport, HostileNamesStayValues)
{
    Policy p;
    p.name = QStringLiteral("n");
    Route r;
    r.id = QStringLiteral("x:\n  evil: {injected: true}");
    r.path = QStringLiteral("/a");
    r.key = QList<KeySelector>{{KeySelector::Kind::Header, QStringLiteral("X-Key")}};
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
    r.limit().burst = 1;
    p.routes.append(r);
    const YAML::Node y = exportYaml(p);
    ASSERT_TRUE(y["http"]["routers"].IsMap());
    EXPECT_EQ(y["http"]["routers"].size(), 1u);
    EXPECT_FALSE(y["http"]["evil"]);
    for (auto it = y["http"]["routers"].begin(); it != y["http"]["routers"].end(); ++it)
        EXPECT_EQ(it->first.as<std::string>().find('\n'), std::string::npos);
}

// Several limits: one rateLimit middleware per limit, each with its own source, chained on the
// router shortest window first; the chain's charging of rejected requests is warned with the
// figures; a shadow limit is left out, warned.
TEST(TraefikExport, SeveralLimitsAreChainedMiddlewaresShortestWindowFirst)
{
    const Policy p = readPolicy(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - { name: daily, algorithm: token_bucket, capacity: 10000, refill: 10000/d }
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 20, refill: 10/s }
      - { name: candidate, algorithm: token_bucket, capacity: 5, refill: 1/s, mode: shadow }
)",
        QStringLiteral("t.yaml"))
                         .policy;
    Diagnostics d;
    const YAML::Node y = exportYaml(p, &d);
    ASSERT_TRUE(y) << (d.isEmpty() ? std::string() : d.first().toString().toStdString());
    const YAML::Node chain = y["http"]["routers"]["qs-search"]["middlewares"];
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_EQ(chain[0].as<std::string>(), "qs-search-burst-ratelimit");
    EXPECT_EQ(chain[1].as<std::string>(), "qs-search-daily-ratelimit");
    const YAML::Node burst = y["http"]["middlewares"]["qs-search-burst-ratelimit"]["rateLimit"];
    EXPECT_EQ(burst["burst"].as<int>(), 20);
    EXPECT_TRUE(burst["sourceCriterion"]["ipStrategy"]);
    const YAML::Node daily = y["http"]["middlewares"]["qs-search-daily-ratelimit"]["rateLimit"];
    EXPECT_EQ(daily["sourceCriterion"]["requestHeaderName"].as<std::string>(), "X-Api-Key");
    EXPECT_FALSE(y["http"]["middlewares"]["qs-search-candidate-ratelimit"]);
    bool chained = false, shadow = false;
    for (const Diagnostic &diagnostic : d) {
        chained = chained
            || (diagnostic.path == "routes[0].limits"
                && diagnostic.message.contains(QStringLiteral(
                    "still spends the tokens of qs-search-burst-ratelimit (burst 20")));
        shadow = shadow
            || (diagnostic.path == "routes[0].limits[2].mode"
                && diagnostic.message.contains(QStringLiteral("'candidate' is not exported")));
    }
    EXPECT_TRUE(chained) << "the chain's leak is warned with the figures";
    EXPECT_TRUE(shadow);
}

// Plans named in a header: a router per plan but the default, on the route's rule and the
// plan's header, above the route's own router, with the plan's numbers; none for unlimited.
TEST(TraefikExport, EachPlanIsARouterOnItsHeaderAboveTheRoutes)
{
    Diagnostics diagnostics;
    const YAML::Node y = exportYaml(readPolicy(R"(quota_studio: 1
name: t
plans: { names: [free, pro, enterprise], from: header:X-Plan }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min, plans: { pro: { capacity: 5 }, enterprise: unlimited } }
)",
                                        QStringLiteral("t.yaml"))
                                        .policy,
        &diagnostics);
    ASSERT_FALSE(hasErrors(diagnostics));
    const YAML::Node routers = y["http"]["routers"];
    ASSERT_EQ(routers.size(), 3u);
    EXPECT_EQ(routers["qs-search-pro"]["rule"].as<std::string>(),
        "(PathRegexp(`^/search/?$`)) && Header(`X-Plan`, `pro`)");
    EXPECT_GT(
        routers["qs-search-pro"]["priority"].as<int>(), routers["qs-search"]["priority"].as<int>());
    EXPECT_GT(routers["qs-search-enterprise"]["priority"].as<int>(),
        routers["qs-search"]["priority"].as<int>());
    EXPECT_FALSE(routers["qs-search-enterprise"]["middlewares"]) << "unlimited: no middleware";
    const YAML::Node middlewares = y["http"]["middlewares"];
    const std::string pro = routers["qs-search-pro"]["middlewares"][0].as<std::string>();
    const std::string own = routers["qs-search"]["middlewares"][0].as<std::string>();
    EXPECT_EQ(middlewares[pro]["rateLimit"]["burst"].as<int>(), 5);
    EXPECT_EQ(middlewares[own]["rateLimit"]["burst"].as<int>(), 2) << "the default plan, free";
}
