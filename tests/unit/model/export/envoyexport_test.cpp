// Envoy export: parsed back with yaml-cpp and checked field by field against the structure
// Envoy documents (v3 bootstrap, local_ratelimit per route, envoyproxy/ratelimit descriptors).
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "tests/support/planfiles.h"

#include <QFile>
#include <QTemporaryDir>

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

#include <optional>

using namespace qs;

namespace {

struct EnvoyFiles {
    YAML::Node bootstrap, service;
    Diagnostics diagnostics;
};

EnvoyFiles exportEnvoy(const Policy &p)
{
    const ExportResult r = exporterById(QStringLiteral("envoy"))->exportPolicy(p);
    EnvoyFiles f;
    f.diagnostics = r.diagnostics;
    for (const ExportedFile &file : r.files) {
        const YAML::Node y = YAML::Load(file.content.toStdString());
        (file.name == QLatin1String("envoy.yaml") ? f.bootstrap : f.service) = y;
    }
    return f;
}

Policy policy(const char *yaml)
{
    return readPolicy(yaml, QStringLiteral("t.yaml")).policy;
}

YAML::Node connectionManager(const YAML::Node &bootstrap)
{
    return bootstrap["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]
                    ["typed_config"];
}

YAML::Node routeNamed(const YAML::Node &bootstrap, const std::string &name)
{
    for (const YAML::Node &r :
        connectionManager(bootstrap)["route_config"]["virtual_hosts"][0]["routes"])
        if (r["name"].as<std::string>() == name)
            return r;
    return {};
}

bool anyMessageContains(const Diagnostics &d, const char *text)
{
    for (const Diagnostic &x : d)
        if (x.message.contains(QLatin1String(text)))
            return true;
    return false;
}

} // namespace

TEST(EnvoyExport, TokenBucketBecomesAnEnabledAndEnforcedLocalLimitOnItsRoute)
{
    const EnvoyFiles f = exportEnvoy(policy(R"(quota_studio: 1
name: shop
defaults: { key: global }
routes:
  - id: login
    match: { methods: [POST, PUT], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
)"));
    ASSERT_EQ(f.diagnostics.size(), 1) << "the local limit of a global token bucket is exact";
    EXPECT_TRUE(f.diagnostics[0].message.contains(QStringLiteral(
        "rate limit service: 2 per second in fixed windows aligned to the clock (designed: 2 per "
        "1s, 10 at once)")))
        << f.diagnostics[0].message.toStdString();
    const YAML::Node hcm = connectionManager(f.bootstrap);
    EXPECT_EQ(hcm["@type"].as<std::string>(),
        "type.googleapis.com/"
        "envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager");
    ASSERT_EQ(hcm["http_filters"].size(), 2u);
    EXPECT_EQ(
        hcm["http_filters"][0]["name"].as<std::string>(), "envoy.filters.http.local_ratelimit");
    EXPECT_FALSE(hcm["http_filters"][0]["typed_config"]["token_bucket"])
        << "no listener-wide bucket: only the routes are limited";
    EXPECT_EQ(hcm["http_filters"][1]["name"].as<std::string>(), "envoy.filters.http.router")
        << "the router must come last";

    const YAML::Node route = routeNamed(f.bootstrap, "qs_login");
    ASSERT_TRUE(route.IsMap());
    EXPECT_EQ(route["match"]["safe_regex"]["regex"].as<std::string>(), "^/v1/login/?$");
    EXPECT_EQ(route["match"]["headers"][0]["name"].as<std::string>(), ":method");
    EXPECT_EQ(route["match"]["headers"][0]["string_match"]["safe_regex"]["regex"].as<std::string>(),
        "^(POST|PUT)$");
    EXPECT_EQ(route["route"]["cluster"].as<std::string>(), "qs_backend");
    const YAML::Node local = route["typed_per_filter_config"]["envoy.filters.http.local_ratelimit"];
    EXPECT_EQ(local["@type"].as<std::string>(),
        "type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit");
    EXPECT_EQ(local["token_bucket"]["max_tokens"].as<int>(), 10);
    EXPECT_EQ(local["token_bucket"]["tokens_per_fill"].as<int>(), 1);
    EXPECT_EQ(local["token_bucket"]["fill_interval"].as<std::string>(), "0.5s");
    // Both default to 0%, which turns the filter off: they must be there, at 100%.
    EXPECT_EQ(local["filter_enabled"]["default_value"]["numerator"].as<int>(), 100);
    EXPECT_EQ(local["filter_enabled"]["default_value"]["denominator"].as<std::string>(), "HUNDRED");
    EXPECT_EQ(local["filter_enforced"]["default_value"]["numerator"].as<int>(), 100);
    EXPECT_EQ(local["status"]["code"].as<int>(), 429);

    const YAML::Node clusters = f.bootstrap["static_resources"]["clusters"];
    EXPECT_EQ(clusters[0]["name"].as<std::string>(), "qs_backend");
    EXPECT_EQ(clusters[0]["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]
                      ["address"]["socket_address"]["address"]
                          .as<std::string>(),
        "127.0.0.1");

    EXPECT_EQ(f.service["domain"].as<std::string>(), "shop");
    const YAML::Node d = f.service["descriptors"][0];
    EXPECT_EQ(d["key"].as<std::string>(), "qs_route");
    EXPECT_EQ(d["value"].as<std::string>(), "login");
    EXPECT_EQ(d["rate_limit"]["unit"].as<std::string>(), "second");
    EXPECT_EQ(d["rate_limit"]["requests_per_unit"].as<int>(), 2);
}

TEST(EnvoyExport, FastRatesRefillInStepsOfAtLeastFiftyMilliseconds)
{
    const EnvoyFiles f = exportEnvoy(policy(R"(quota_studio: 1
name: t
defaults: { key: global }
routes:
  - id: fast
    match: { path: /f }
    limit: { algorithm: gcra, rate: 50/s, burst: 100 }
  - id: odd
    match: { path: /o }
    limit: { algorithm: token_bucket, capacity: 5, refill: 3/s }
)"));
    const YAML::Node fast = routeNamed(f.bootstrap,
        "qs_fast")["typed_per_filter_config"]["envoy.filters.http.local_ratelimit"]["token_bucket"];
    EXPECT_EQ(fast["tokens_per_fill"].as<int>(), 3) << "50/s: 3 tokens every 60 ms";
    EXPECT_EQ(fast["fill_interval"].as<std::string>(), "0.06s");
    EXPECT_TRUE(
        anyMessageContains(f.diagnostics, "3 tokens every 0.06 s instead of one every 0.02 s"));
    const YAML::Node odd = routeNamed(f.bootstrap,
        "qs_odd")["typed_per_filter_config"]["envoy.filters.http.local_ratelimit"]["token_bucket"];
    EXPECT_EQ(odd["tokens_per_fill"].as<int>(), 3) << "1/3 s is no whole microsecond";
    EXPECT_EQ(odd["fill_interval"].as<std::string>(), "1s");
}

TEST(EnvoyExport, PerClientKeysShadowAndWindowsAreWarnedAndExpressedInTheService)
{
    const EnvoyFiles f = exportEnvoy(policy(R"(quota_studio: 1
name: t
routes:
  - id: api
    match: { path: /v1/** }
    key: [ip, header:X-Api-Key]
    mode: shadow
    limit: { algorithm: fixed_window, limit: 100, window: 1m }
)"));
    EXPECT_FALSE(hasErrors(f.diagnostics));
    EXPECT_TRUE(anyMessageContains(f.diagnostics, "one bucket per route and Envoy instance"));
    EXPECT_TRUE(anyMessageContains(f.diagnostics, "windows start when Envoy starts"));
    const YAML::Node route = routeNamed(f.bootstrap, "qs_api");
    const YAML::Node local = route["typed_per_filter_config"]["envoy.filters.http.local_ratelimit"];
    EXPECT_EQ(local["filter_enabled"]["default_value"]["numerator"].as<int>(), 100);
    EXPECT_EQ(local["filter_enforced"]["default_value"]["numerator"].as<int>(), 0)
        << "shadow: counted, never enforced";
    EXPECT_EQ(local["token_bucket"]["tokens_per_fill"].as<int>(), 100);
    EXPECT_EQ(local["token_bucket"]["fill_interval"].as<std::string>(), "60s");

    const YAML::Node actions = route["route"]["rate_limits"][0]["actions"];
    ASSERT_EQ(actions.size(), 3u);
    EXPECT_EQ(actions[0]["generic_key"]["descriptor_value"].as<std::string>(), "api");
    EXPECT_TRUE(actions[1]["remote_address"].IsMap());
    EXPECT_EQ(actions[2]["request_headers"]["header_name"].as<std::string>(), "x-api-key");

    const YAML::Node d = f.service["descriptors"][0];
    EXPECT_EQ(d["descriptors"][0]["key"].as<std::string>(), "remote_address");
    const YAML::Node inner = d["descriptors"][0]["descriptors"][0];
    EXPECT_EQ(inner["key"].as<std::string>(),
        actions[2]["request_headers"]["descriptor_key"].as<std::string>());
    EXPECT_EQ(inner["rate_limit"]["unit"].as<std::string>(), "minute");
    EXPECT_EQ(inner["rate_limit"]["requests_per_unit"].as<int>(), 100);
    EXPECT_TRUE(inner["shadow_mode"].as<bool>());
    EXPECT_FALSE(anyMessageContains(f.diagnostics, "rate limit service:"))
        << "a fixed window of one unit is exact in the rate limit service";
}

TEST(EnvoyExport, WhatEnvoyCannotNameIsAnError)
{
    const Policy p = policy(R"(quota_studio: 1
name: t
routes:
  - id: q
    match: { path: /q }
    key: query:token
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)");
    const EnvoyFiles f = exportEnvoy(p);
    EXPECT_TRUE(hasErrors(f.diagnostics));
    EXPECT_TRUE(f.bootstrap.IsNull()) << "no file when the export has errors";

    Policy header = p;
    header.routes[0].key
        = QList<KeySelector>{{KeySelector::Kind::Header, QStringLiteral("X Evil\n: 1")}};
    EXPECT_TRUE(hasErrors(exportEnvoy(header).diagnostics));
}

TEST(EnvoyExport, HostileRouteIdsStayValues)
{
    Policy p;
    p.name = QStringLiteral("n\n  evil: 1");
    Route r;
    r.id = QStringLiteral("x\"\n      injected: {a: 1}");
    r.path = QStringLiteral("/a");
    r.key = QList<KeySelector>{{KeySelector::Kind::Global, {}}};
    r.limit().algorithm = limiter::Algorithm::Gcra;
    r.limit().rate = RateValue{QStringLiteral("1/s"), limiter::Rate{1, limiter::kMicrosPerSecond}};
    r.limit().burst = 1;
    p.routes.append(r);
    Route unlimited = r;
    unlimited.id = QStringLiteral("unlimited");
    unlimited.path = QStringLiteral("/b");
    p.routes.append(unlimited);
    const EnvoyFiles f = exportEnvoy(p);
    ASSERT_TRUE(f.bootstrap.IsMap());
    const YAML::Node routes
        = connectionManager(f.bootstrap)["route_config"]["virtual_hosts"][0]["routes"];
    ASSERT_EQ(routes.size(), 3u);
    std::set<std::string> names;
    for (const YAML::Node &route : routes) {
        names.insert(route["name"].as<std::string>());
        EXPECT_FALSE(route["injected"]);
    }
    EXPECT_EQ(names.size(), 3u) << "a route called 'unlimited' does not collide with the catch-all";
    EXPECT_EQ(f.service["descriptors"][0]["value"].as<std::string>(), r.id.toStdString());
    EXPECT_EQ(f.service["domain"].as<std::string>().find('\n'), std::string::npos);
    EXPECT_FALSE(f.service["evil"]);
}

// Large exports write their routes on several threads (yaml::emitItemsInParallel): every route
// once, in the policy's order (equally specific paths keep it), each with its own limit.
TEST(EnvoyExport, ALargePolicyIsWrittenWholeAndInOrder)
{
    QByteArray text = "quota_studio: 1\nname: big\nroutes:\n";
    const int count = 10'000; // two threads' worth
    for (int i = 0; i < count; ++i)
        text += "  - id: r" + QByteArray::number(i) + "\n    match: { path: /v1/r"
            + QByteArray::number(i) + " }\n    limit: { algorithm: token_bucket, capacity: "
            + QByteArray::number(i % 50 + 1) + ", refill: 1/s }\n";
    const EnvoyFiles f = exportEnvoy(readPolicy(text, QStringLiteral("big.yaml")).policy);
    const YAML::Node routes
        = connectionManager(f.bootstrap)["route_config"]["virtual_hosts"][0]["routes"];
    ASSERT_EQ(routes.size(), std::size_t(count) + 1);
    for (int i = 0; i < count; ++i) {
        const YAML::Node r = routes[std::size_t(i)];
        ASSERT_EQ(r["name"].as<std::string>(), std::string("qs_r") + std::to_string(i));
        ASSERT_EQ(r["match"]["safe_regex"]["regex"].as<std::string>(),
            std::string("^/v1/r") + std::to_string(i) + "/?$");
        ASSERT_EQ(r["typed_per_filter_config"]["envoy.filters.http.local_ratelimit"]["token_bucket"]
                   ["max_tokens"]
                       .as<int>(),
            i % 50 + 1);
    }
    EXPECT_EQ(routes[std::size_t(count)]["name"].as<std::string>(), "qs_unlimited");
}

// Several limits: a rate_limits entry per limit (qs_route, qs_limit, then the limit's own key),
// a qs_limit descriptor per limit under the route's in the service config (shadow_mode for a
// shadow one), no local bucket, and the service's counting of every descriptor warned.
TEST(EnvoyExport, SeveralLimitsAreOneDescriptorEach)
{
    const EnvoyFiles f = exportEnvoy(policy(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - { name: burst, key: ip, algorithm: fixed_window, limit: 10, window: 1s }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d }
      - { name: candidate, algorithm: fixed_window, limit: 500, window: 1h, mode: shadow }
)"));
    ASSERT_FALSE(hasErrors(f.diagnostics));
    const YAML::Node route = routeNamed(f.bootstrap, "qs_search");
    const YAML::Node limits = route["route"]["rate_limits"];
    ASSERT_EQ(limits.size(), 3u);
    const YAML::Node burst = limits[0]["actions"];
    EXPECT_EQ(burst[0]["generic_key"]["descriptor_value"].as<std::string>(), "search");
    EXPECT_EQ(burst[1]["generic_key"]["descriptor_key"].as<std::string>(), "qs_limit");
    EXPECT_EQ(burst[1]["generic_key"]["descriptor_value"].as<std::string>(), "burst");
    EXPECT_TRUE(burst[2]["remote_address"]);
    EXPECT_EQ(
        limits[1]["actions"][2]["request_headers"]["header_name"].as<std::string>(), "x-api-key");
    EXPECT_FALSE(route["typed_per_filter_config"]) << "one local bucket cannot hold three limits";

    const YAML::Node under = f.service["descriptors"][0]["descriptors"];
    ASSERT_EQ(under.size(), 3u);
    EXPECT_EQ(under[0]["value"].as<std::string>(), "burst");
    EXPECT_EQ(under[0]["descriptors"][0]["key"].as<std::string>(), "remote_address");
    EXPECT_EQ(under[0]["descriptors"][0]["rate_limit"]["unit"].as<std::string>(), "second");
    EXPECT_EQ(under[1]["descriptors"][0]["rate_limit"]["requests_per_unit"].as<int>(), 10000);
    EXPECT_TRUE(under[2]["descriptors"][0]["shadow_mode"].as<bool>());
    EXPECT_FALSE(under[1]["descriptors"][0]["shadow_mode"]);
    EXPECT_TRUE(anyMessageContains(f.diagnostics, "counts a request in every descriptor"));
}

namespace {

// What envoyproxy/ratelimit matches for a request's descriptor: at each level the entry with the
// key and the value, else the one with the key alone; the descriptor's depth exactly
// (config_impl.go GetLimit). The matched rate_limit node, or a null node.
YAML::Node matchDescriptor(
    const YAML::Node &config, const std::vector<std::pair<std::string, std::string>> &entries)
{
    // yaml-cpp's Node::operator= writes into the node it refers to: rebind with reset() and
    // emplace() so that walking never edits the tree.
    YAML::Node level;
    level.reset(config["descriptors"]);
    std::optional<YAML::Node> found;
    for (const auto &[key, value] : entries) {
        std::optional<YAML::Node> exact, any;
        for (const YAML::Node &d : level) {
            if (d["key"].as<std::string>() != key)
                continue;
            if (d["value"] && d["value"].as<std::string>() == value)
                exact.emplace(d);
            else if (!d["value"])
                any.emplace(d);
        }
        found.reset();
        if (exact)
            found.emplace(*exact);
        else if (any)
            found.emplace(*any);
        if (!found)
            return YAML::Node(YAML::NodeType::Undefined);
        level.reset((*found)["descriptors"]);
    }
    return found ? (*found)["rate_limit"] : YAML::Node(YAML::NodeType::Undefined);
}

} // namespace

// Plans through Envoy: the plan's header (here the API key, looked up in the map's values)
// becomes a `qs_plan` entry, and the service config answers each value with its plan's numbers,
// any other value or none with the default plan's.
TEST(EnvoyExport, EachPlanIsADescriptorValueWithItsNumbers)
{
    Policy p = policy(R"(quota_studio: 1
name: plans
plans: { names: [free, pro, enterprise], from: header:X-Plan }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: fixed_window, limit: 10, window: 1m, plans: { pro: { limit: 100 }, enterprise: unlimited } }
)");
    const EnvoyFiles f = exportEnvoy(p);
    ASSERT_FALSE(hasErrors(f.diagnostics));
    const YAML::Node actions
        = connectionManager(f.bootstrap)["route_config"]["virtual_hosts"][0]["routes"][0]["route"]
                                        ["rate_limits"][0]["actions"];
    ASSERT_EQ(actions.size(), 4u);
    EXPECT_EQ(actions[2]["request_headers"]["header_name"].as<std::string>(), "x-plan");
    EXPECT_EQ(actions[2]["request_headers"]["descriptor_key"].as<std::string>(), "qs_plan");
    EXPECT_TRUE(actions[2]["request_headers"]["skip_if_absent"].as<bool>());
    EXPECT_FALSE(connectionManager(
        f.bootstrap)["route_config"]["virtual_hosts"][0]["routes"][0]["typed_per_filter_config"])
        << "no local bucket: it cannot tell plans apart";

    const auto rate = [&](std::vector<std::pair<std::string, std::string>> plan) {
        std::vector<std::pair<std::string, std::string>> d
            = {{"qs_route", "search"}, {"qs_limit", "default"}};
        d.insert(d.end(), plan.begin(), plan.end());
        d.push_back({"header_x-api-key", "k-1"});
        const YAML::Node r = matchDescriptor(f.service, d);
        if (!r.IsDefined() || r.IsNull())
            return std::string("no match");
        if (r["unlimited"])
            return std::string("unlimited");
        return std::to_string(r["requests_per_unit"].as<int>()) + "/" + r["unit"].as<std::string>();
    };
    EXPECT_EQ(rate({{"qs_plan", "pro"}}), "100/minute");
    EXPECT_EQ(rate({{"qs_plan", "enterprise"}}), "unlimited");
    EXPECT_EQ(rate({{"qs_plan", "free"}}), "10/minute");
    EXPECT_EQ(rate({{"qs_plan", "PRO"}}), "10/minute") << "not a plan: the default";
    EXPECT_EQ(rate({}), "10/minute") << "no plan header: the default";
}

TEST(EnvoyExport, PlansFromAMapAreDescriptorValuesOfTheKey)
{
    QTemporaryDir dir;
    const PolicyReadResult read = test::readPolicyWithMap(dir, R"(quota_studio: 1
name: plans
plans: { names: [free, pro, enterprise], from: { key: "header:X-Api-Key", map: plans.map } }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: fixed_window, limit: 10, window: 1m, plans: { pro: { limit: 100 }, enterprise: unlimited } }
)",
        "k-pro pro\nk-ent enterprise\nk-free free\n");
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const EnvoyFiles f = exportEnvoy(read.policy);
    ASSERT_FALSE(hasErrors(f.diagnostics));
    const auto rate = [&](const std::string &key) {
        const YAML::Node r = matchDescriptor(f.service,
            {{"qs_route", "search"}, {"qs_limit", "default"}, {"qs_plan", key},
                {"header_x-api-key", key}});
        return !r.IsDefined() || r.IsNull() ? std::string("no match")
            : r["unlimited"]                ? std::string("unlimited")
                                            : std::to_string(r["requests_per_unit"].as<int>());
    };
    EXPECT_EQ(rate("k-pro"), "100");
    EXPECT_EQ(rate("k-ent"), "unlimited");
    EXPECT_EQ(rate("k-free"), "10");
    EXPECT_EQ(rate("k-other"), "10");
}
