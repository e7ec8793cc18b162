// Every mistake is reported where it is (line, column, field path) with what to do, and all of
// them at once.
#include "model/policy/policyreader.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

struct Case {
    const char *name;
    const char *routes; // YAML lines of a `routes:` list, starting at line 4
    const char *path;
    int line;
    int column;
    const char *says; // part of the message
    Diagnostic::Severity severity = Diagnostic::Severity::Error;
    friend void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }
};

QByteArray policyWith(const char *routes)
{
    return QByteArray("quota_studio: 1\nname: t\nroutes:\n") + routes;
}

class Validation : public ::testing::TestWithParam<Case> { };

constexpr auto W = Diagnostic::Severity::Warning;

} // namespace

TEST_P(Validation, ReportsWhereAndWhat)
{
    const Case &c = GetParam();
    const PolicyReadResult r = readPolicy(policyWith(c.routes), QStringLiteral("p.yaml"));
    const Diagnostic *hit = nullptr;
    for (const Diagnostic &d : r.diagnostics)
        if (d.path == QLatin1String(c.path) && d.severity == c.severity)
            hit = &d;
    ASSERT_TRUE(hit) << "no diagnostic at " << c.path << "; got:\n" << dump(r.diagnostics);
    EXPECT_EQ(hit->line, c.line) << hit->toString().toStdString();
    EXPECT_EQ(hit->column, c.column) << hit->toString().toStdString();
    EXPECT_TRUE(hit->message.contains(QLatin1String(c.says))) << hit->toString().toStdString();
}

INSTANTIATE_TEST_SUITE_P(Cases, Validation,
    ::testing::Values(Case{"unknown_field_did_you_mean",
                          "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: "
                          "1/s, brust: 2 }\n",
                          "routes[0].limit.brust", 6, 42, "did you mean `burst`?"},
        Case{"wrong_type",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: token_bucket, capacity: "
            "[1], refill: 1/s }\n",
            "routes[0].limit.capacity", 6, 49, "expected text here, not a list"},
        Case{"not_a_number",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: token_bucket, capacity: "
            "ten, refill: 1/s }\n",
            "routes[0].limit.capacity", 6, 49, "expected a whole number, got 'ten'"},
        Case{"missing_required",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: token_bucket, capacity: 5 "
            "}\n",
            "routes[0].limit.refill", 6, 12,
            "missing `refill`: token_bucket takes capacity and refill"},
        Case{"missing_route_field",
            "  - id: a\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 }\n", "routes[0].match",
            4, 5, "missing `match`"},
        Case{"bad_rate",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 10 per "
            "second, burst: 1 }\n",
            "routes[0].limit.rate", 6, 37, "is not a rate"},
        Case{"bad_rate_unit",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 10/fortnight, "
            "burst: 1 }\n",
            "routes[0].limit.rate", 6, 37, "unknown unit 'fortnight'"},
        Case{"bad_duration",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: fixed_window, limit: 5, "
            "window: 1.5m }\n",
            "routes[0].limit.window", 6, 57, "is not a duration"},
        Case{"zero",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 0/s, burst: 1 "
            "}\n",
            "routes[0].limit.rate", 6, 37, "must allow some requests"},
        Case{"absurd",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: token_bucket, capacity: "
            "99999999999, refill: 1/s }\n",
            "routes[0].limit.capacity", 6, 49, "out of range"},
        Case{"duplicate_id",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 "
            "}\n"
            "  - id: a\n    match: { path: /b }\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 "
            "}\n",
            "routes[1].id", 7, 9, "duplicate route id 'a' (also used at line 4)"},
        Case{"duplicate_id_blames_the_first_too",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 "
            "}\n"
            "  - id: a\n    match: { path: /b }\n    limit: { algorithm: gcra, rate: 1/s, burst: 1 "
            "}\n",
            "routes[0].id", 4, 9, "duplicate route id 'a' (also used at line 7)"},
        Case{"unknown_algorithm_says_so",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: warp_drive, rate: 1/s }\n",
            "routes[0].limit.algorithm", 6, 25, "unknown algorithm 'warp_drive'"},
        Case{"invalid_header",
            "  - id: a\n    match: { path: /a }\n    key: header:X Api Key\n    limit: { "
            "algorithm: gcra, rate: 1/s, burst: 1 }\n",
            "routes[0].key", 6, 10, "is not a valid header name"},
        Case{"ambiguous_overlap",
            "  - id: a\n    match: { path: \"/v1/{id}\" }\n    limit: { algorithm: gcra, rate: "
            "1/s, burst: 1 }\n"
            "  - id: b\n    match: { path: /v1/* }\n    limit: { algorithm: gcra, rate: 1/s, "
            "burst: 1 }\n",
            "routes[1].match.path", 8, 20, "equally specific"},
        Case{"never_matches",
            "  - id: a\n    match: { path: /v1/x }\n    limit: { algorithm: gcra, rate: 1/s, "
            "burst: 1 }\n"
            "  - id: b\n    match: { methods: [GET], path: /v1/x }\n    limit: { algorithm: gcra, "
            "rate: 1/s, burst: 1 }\n",
            "routes[1].match.path", 8, 36, "can never match", W},
        Case{"empty_path_is_refused_as_export_would",
            "  - id: a\n    match: { path: \"\" }\n    limit: { algorithm: gcra, rate: 1/s, "
            "burst: 1 }\n",
            "routes[0].match.path", 5, 20, "must start with '/'"},
        Case{"encoded_dot_segment_never_matches",
            "  - id: a\n    match: { path: \"/v1/%2e%2e/admin\" }\n    limit: { algorithm: gcra, "
            "rate: 1/s, burst: 1 }\n",
            "routes[0].match.path", 5, 20, "is a dot segment"},
        Case{"unmatchable_pattern",
            "  - id: a\n    match: { path: \"/v1/a b\" }\n    limit: { algorithm: gcra, rate: 1/s, "
            "burst: 1 }\n",
            "routes[0].match.path", 5, 20, "a space at character 2 may not appear"},
        Case{"cost_above_limit",
            "  - id: a\n    match: { path: /a }\n    cost: 5\n    limit: { algorithm: gcra, rate: "
            "1/s, burst: 3 }\n",
            "routes[0].cost", 6, 11, "more than this limit can ever admit (3)"},
        Case{"parameter_of_another_algorithm",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 1/s, burst: "
            "1, capacity: 3 }\n",
            "routes[0].limit.capacity", 6, 62, "does not apply to gcra"},
        Case{"fixed_window_spike_warning",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: fixed_window, limit: 100, "
            "window: 1m }\n",
            "routes[0].limit.algorithm", 6, 25, "up to 200 requests within any 1m", W},
        Case{"fixed_window_spike_warning_follows_the_window",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: fixed_window, limit: 5, "
            "window: 500ms }\n",
            "routes[0].limit.algorithm", 6, 25, "up to 10 requests within any 500ms", W},
        Case{"shadow_warning",
            "  - id: a\n    match: { path: /a }\n    mode: shadow\n    limit: { algorithm: gcra, "
            "rate: 1/s, burst: 1 }\n",
            "routes[0].mode", 6, 11, "never rejected", W},
        Case{"sliding_log_memory_warning",
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: sliding_window_log, "
            "limit: 10000, window: 1h }\n",
            "routes[0].limit.limit", 6, 52, "1152 KB of Redis memory per client key", W},
        Case{"bad_method",
            "  - id: a\n    match: { methods: [FETCH], path: /a }\n    limit: { algorithm: gcra, "
            "rate: 1/s, burst: 1 }\n",
            "routes[0].match.methods[0]", 5, 24, "not an HTTP method"},
        Case{"bad_route_id",
            "  - id: \"a;b\"\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: 1/s, "
            "burst: 1 }\n",
            "routes[0].id", 4, 9, "must be 1-64 letters"}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(ValidationAll, ReportsEveryProblemAtOnce)
{
    const PolicyReadResult r = readPolicy(
        policyWith(
            "  - id: a\n    match: { path: /a }\n    limit: { algorithm: gcra, rate: x, burst: 0 "
            "}\n"
            "  - idd: b\n    match: { path: nope }\n    limit: { algorithm: leaky, rate: 1/s }\n"),
        QStringLiteral("p.yaml"));
    int errors = 0;
    for (const Diagnostic &d : r.diagnostics)
        errors += d.severity == Diagnostic::Severity::Error;
    // rate, burst, idd (unknown), id (missing), path, algorithm
    EXPECT_GE(errors, 6) << dump(r.diagnostics);
}

TEST(ValidationAll, TopLevelUnknownFieldAndMissingName)
{
    const PolicyReadResult r
        = readPolicy("quota_studio: 1\nroutez: []\n", QStringLiteral("p.yaml"));
    bool unknown = false, missingName = false;
    for (const Diagnostic &d : r.diagnostics) {
        unknown |= d.path == QLatin1String("routez")
            && d.message.contains(QLatin1String("did you mean `routes`"));
        missingName |= d.path == QLatin1String("name") && d.line == 1;
    }
    EXPECT_TRUE(unknown) << dump(r.diagnostics);
    EXPECT_TRUE(missingName) << dump(r.diagnostics);
}

TEST(ValidationAll, JsonInputGetsLinesAndColumnsToo)
{
    const QByteArray json = R"({
  "quota_studio": 1,
  "name": "json-policy",
  "routes": [
    {
      "id": "login",
      "match": { "path": "/v1/login" },
      "limit": { "algorithm": "token_bucket", "capacity": 10, "refill": "2 per s" }
    }
  ]
})";
    const PolicyReadResult r = readPolicy(json, QStringLiteral("p.json"));
    ASSERT_EQ(r.diagnostics.size(), 1) << dump(r.diagnostics);
    const Diagnostic &d = r.diagnostics.first();
    EXPECT_EQ(d.path, QStringLiteral("routes[0].limit.refill"));
    EXPECT_EQ(d.line, 8);
    EXPECT_EQ(d.column, 73);
    EXPECT_TRUE(d.message.contains(QStringLiteral("is not a rate")));
}
