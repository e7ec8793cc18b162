// Kong export: parsed back with yaml-cpp and checked field by field against Kong's declarative
// format (_format_version "3.0", services → routes → plugins: rate-limiting).
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

using namespace qs;

namespace {

YAML::Node exportKong(const Policy &p, Diagnostics *diagnostics = nullptr)
{
    const ExportResult r = exporterById(QStringLiteral("kong"))->exportPolicy(p);
    if (diagnostics)
        *diagnostics = r.diagnostics;
    return r.files.empty() ? YAML::Node() : YAML::Load(r.files.front().content.toStdString());
}

Policy policy(const char *yaml)
{
    return readPolicy(yaml, QStringLiteral("t.yaml")).policy;
}

YAML::Node serviceNamed(const YAML::Node &kong, const std::string &name)
{
    for (const YAML::Node &s : kong["services"])
        if (s["name"].as<std::string>() == name)
            return s;
    return {};
}

} // namespace

TEST(KongExport, FixedWindowOfOneUnitIsExact)
{
    Diagnostics d;
    const YAML::Node kong = exportKong(policy(R"(quota_studio: 1
name: t
defaults: { on_store_error: deny, status: 503 }
routes:
  - id: reports
    match: { methods: [GET], path: /v1/reports/** }
    key: header:X-Api-Key
    missing_key: ip
    limit: { algorithm: fixed_window, limit: 1000, window: 1h }
)"),
        &d);
    EXPECT_TRUE(d.isEmpty()) << "missing_key ip is what Kong does without the header";
    EXPECT_EQ(kong["_format_version"].as<std::string>(), "3.0");
    const YAML::Node service = serviceNamed(kong, "qs-reports");
    ASSERT_TRUE(service.IsMap());
    EXPECT_EQ(service["url"].as<std::string>(), "http://127.0.0.1:8081");
    const YAML::Node route = service["routes"][0];
    EXPECT_EQ(route["name"].as<std::string>(), "qs-reports");
    EXPECT_EQ(route["paths"][0].as<std::string>(), "~/v1/reports(/.*)?$")
        << "Kong 3 regex paths start with ~";
    EXPECT_EQ(route["methods"][0].as<std::string>(), "GET");
    EXPECT_FALSE(route["strip_path"].as<bool>()) << "the upstream must see the path it was sent";
    const YAML::Node plugin = route["plugins"][0];
    EXPECT_EQ(plugin["name"].as<std::string>(), "rate-limiting");
    const YAML::Node config = plugin["config"];
    EXPECT_EQ(config["hour"].as<int>(), 1000);
    EXPECT_FALSE(config["minute"]);
    EXPECT_EQ(config["limit_by"].as<std::string>(), "header");
    EXPECT_EQ(config["header_name"].as<std::string>(), "X-Api-Key");
    EXPECT_EQ(config["policy"].as<std::string>(), "local");
    EXPECT_FALSE(config["fault_tolerant"].as<bool>()) << "on_store_error: deny";
    EXPECT_EQ(config["error_code"].as<int>(), 503);
    EXPECT_TRUE(serviceNamed(kong, "qs-unlimited")) << "other paths still reach the upstream";
}

TEST(KongExport, BucketsAndOddRatesAreApproximatedWithNumbers)
{
    Diagnostics d;
    const YAML::Node kong = exportKong(policy(R"(quota_studio: 1
name: t
defaults: { key: global }
routes:
  - id: login
    match: { path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 10, refill: 2/s }
  - id: slow
    match: { path: /v1/** }
    limit: { algorithm: gcra, rate: 1000/h, burst: 5 }
)"),
        &d);
    ASSERT_EQ(d.size(), 2);
    EXPECT_TRUE(d[0].message.contains(QStringLiteral("2 per second in fixed windows")));
    EXPECT_TRUE(d[0].message.contains(QStringLiteral("10 at once")));
    const YAML::Node login = serviceNamed(kong, "qs-login")["routes"][0]["plugins"][0]["config"];
    EXPECT_EQ(login["second"].as<int>(), 2);
    EXPECT_EQ(login["limit_by"].as<std::string>(), "service")
        << "a global key: each route has its own service";
    const YAML::Node slow = serviceNamed(kong, "qs-slow")["routes"][0]["plugins"][0]["config"];
    EXPECT_EQ(slow["hour"].as<int>(), 1000);
    EXPECT_GT(serviceNamed(kong, "qs-login")["routes"][0]["regex_priority"].as<int>(),
        serviceNamed(kong, "qs-slow")["routes"][0]["regex_priority"].as<int>())
        << "the more specific route is tried first";
}

TEST(KongExport, WhatKongCannotExpressIsNeverSilentlyDropped)
{
    Diagnostics d;
    const Policy p = policy(R"(quota_studio: 1
name: t
routes:
  - id: s
    match: { path: /s }
    mode: shadow
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
    cost: 2
)");
    const YAML::Node kong = exportKong(p, &d);
    EXPECT_FALSE(serviceNamed(kong, "qs-s")["routes"][0]["plugins"]) << "shadow never rejects";
    QStringList messages;
    for (const Diagnostic &x : d)
        messages << x.message;
    EXPECT_TRUE(messages.join(QLatin1Char('\n')).contains(QStringLiteral("no dry-run")));
    EXPECT_TRUE(messages.join(QLatin1Char('\n')).contains(QStringLiteral("cost 2")));

    Policy query = p;
    query.routes[0].key = QList<KeySelector>{{KeySelector::Kind::Query, QStringLiteral("t")}};
    EXPECT_TRUE(exportKong(query, &d).IsNull());
    EXPECT_TRUE(hasErrors(d));
    Policy combined = p;
    combined.routes[0].key = QList<KeySelector>{
        {KeySelector::Kind::Ip, {}}, {KeySelector::Kind::Header, QStringLiteral("X-A")}};
    exportKong(combined, &d);
    EXPECT_TRUE(hasErrors(d));
}

TEST(KongExport, HostileNamesStayValues)
{
    Policy p;
    p.name = QStringLiteral("n");
    Route r;
    r.id = QStringLiteral("x\n  _format_version: \"1.1\"\nevil: [1]");
    r.path = QStringLiteral("/a");
    r.key = QList<KeySelector>{{KeySelector::Kind::Ip, {}}};
    r.limit().algorithm = limiter::Algorithm::FixedWindow;
    r.limit().limit = 5;
    r.limit().window = DurationValue{QStringLiteral("1s"), limiter::kMicrosPerSecond};
    p.routes.append(r);
    const YAML::Node kong = exportKong(p);
    ASSERT_TRUE(kong.IsMap());
    EXPECT_EQ(kong["_format_version"].as<std::string>(), "3.0");
    EXPECT_FALSE(kong["evil"]);
    EXPECT_EQ(kong["services"].size(), 2u);
    const std::string name = kong["services"][0]["name"].as<std::string>();
    EXPECT_EQ(name.find_first_not_of(
                  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~"),
        std::string::npos)
        << name;
}

TEST(KongExport, WarnsWhereItsMissingHeaderFallbackDiffersFromTheDesign)
{
    for (const char *mode : {"shared", "deny", "allow"}) {
        Diagnostics d;
        exportKong(policy(QStringLiteral(R"(quota_studio: 1
name: t
routes:
  - id: reports
    match: { path: /v1/reports }
    key: header:X-Api-Key
    missing_key: %1
    limit: { algorithm: fixed_window, limit: 10, window: 1m }
)")
                              .arg(QLatin1String(mode))
                              .toUtf8()
                              .constData()),
            &d);
        ASSERT_EQ(d.size(), 1) << mode;
        EXPECT_EQ(d[0].path, QStringLiteral("routes[0].missing_key"));
        EXPECT_TRUE(d[0].message.contains(QStringLiteral("under the client address")))
            << d[0].message.toStdString();
    }
}

// Several limits on one key are the periods of one rate-limiting plugin; Kong OSS has one plugin
// per route with one limit_by, so limits on different keys are an error that says why, as are
// two limits on one period and a longer period with a lower number (Kong's schema refuses it).
TEST(KongExport, SeveralLimitsAreThePeriodsOfOnePlugin)
{
    Diagnostics d;
    const Policy p = policy(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    missing_key: ip
    limits:
      - { name: burst, algorithm: fixed_window, limit: 10, window: 1s }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d }
      - { name: candidate, algorithm: fixed_window, limit: 500, window: 1h, mode: shadow }
)");
    const YAML::Node kong = exportKong(p, &d);
    ASSERT_FALSE(hasErrors(d)) << d.first().toString().toStdString();
    const YAML::Node config = serviceNamed(kong, "qs-search")["routes"][0]["plugins"][0]["config"];
    EXPECT_EQ(config["second"].as<int>(), 10);
    EXPECT_EQ(config["day"].as<int>(), 10000);
    EXPECT_FALSE(config["hour"]) << "the shadow candidate is not enforced";
    EXPECT_EQ(config["limit_by"].as<std::string>(), "header");

    const auto errorOf = [&](const char *limits) {
        const Policy q = policy((std::string(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    limits:
)") + limits)
                                    .c_str());
        Diagnostics e;
        exportKong(q, &e);
        for (const Diagnostic &x : e)
            if (x.severity == Diagnostic::Severity::Error)
                return x.message.toStdString();
        return std::string();
    };
    EXPECT_NE(
        errorOf("      - { name: a, key: ip, algorithm: fixed_window, limit: 10, window: 1s }\n"
                "      - { name: b, key: header:X-Api-Key, algorithm: fixed_window, limit: "
                "100, window: 1d }\n")
            .find("one limit_by"),
        std::string::npos);
    EXPECT_NE(errorOf("      - { name: a, algorithm: fixed_window, limit: 10, window: 1m }\n"
                      "      - { name: b, algorithm: fixed_window, limit: 20, window: 1m }\n")
                  .find("two limits become Kong's `minute`"),
        std::string::npos);
    EXPECT_NE(errorOf("      - { name: a, algorithm: fixed_window, limit: 100, window: 1m }\n"
                      "      - { name: b, algorithm: fixed_window, limit: 50, window: 1h }\n")
                  .find("a longer period may not have a lower limit"),
        std::string::npos);
}
