#include "model/policy/policyreader.h"
#include "model/policy/routeresolver.h"

#include <gtest/gtest.h>

using namespace qs;

namespace {

const QByteArray kRoutes = R"(quota_studio: 1
name: resolver
routes:
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: users-any
    match: { path: /v1/users/* }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: user-orders
    match: { path: "/v1/users/{id}/orders" }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: user-me
    match: { path: /v1/users/me }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: reports
    match: { path: /v1/reports/** }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: report-daily
    match: { methods: [GET], path: /v1/reports/daily/** }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: files
    match: { path: "/v1/files/a%7Eb%3Ac" }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
)";

struct Case {
    const char *method;
    const char *target;
    const char *route; // nullptr: no route
    friend void PrintTo(const Case &c, std::ostream *os) { *os << c.method << ' ' << c.target; }
};

class Resolve : public ::testing::TestWithParam<Case> { };

} // namespace

TEST_P(Resolve, PicksTheMostSpecificRoute)
{
    static const Policy policy = readPolicy(kRoutes, QStringLiteral("r.yaml")).policy;
    static const RouteResolver resolver(policy);
    const Case &c = GetParam();
    const auto index = resolver.resolve(QLatin1String(c.method), QLatin1String(c.target));
    if (!c.route) {
        EXPECT_FALSE(index.has_value())
            << c.target << " -> " << policy.routes[*index].id.toStdString();
        return;
    }
    ASSERT_TRUE(index.has_value()) << c.method << " " << c.target;
    EXPECT_EQ(policy.routes[*index].id.toStdString(), c.route) << c.method << " " << c.target;
}

INSTANTIATE_TEST_SUITE_P(Table, Resolve,
    ::testing::Values(Case{"POST", "/v1/login", "login"},
        Case{"post", "/v1/login", "login"}, // method case
        Case{"GET", "/v1/login", nullptr}, // method not limited
        Case{"POST", "/v1/login/", "login"}, // trailing slash
        Case{"POST", "/v1//login", "login"}, // empty segment
        Case{"POST", "/v1/login?next=/home", "login"}, // query string
        Case{"POST", "/v1/%6Cogin", "login"}, // percent-encoding
        Case{"POST", "/v1/public/../login", "login"}, // dot segments
        Case{"POST", "/v1/%2e%2e/v1/login", "login"}, // encoded dot segments
        Case{"GET", "/v1/users/42", "users-any"}, // *
        Case{"GET", "/v1/users/me", "user-me"}, // literal beats *
        Case{"GET", "/v1/users/42/orders", "user-orders"}, // {param}
        Case{"GET", "/v1/users", nullptr}, // * needs one segment
        Case{"GET", "/v1/users/42/orders/7", nullptr},
        Case{"GET", "/v1/reports", "reports"}, // ** takes none
        Case{"GET", "/v1/reports/2024/q1", "reports"}, // ** takes many
        Case{"GET", "/v1/reports/daily/x", "report-daily"}, // longer literal wins
        Case{"POST", "/v1/reports/daily/x", "reports"},
        Case{"GET", "/v1/files/a~b%3Ac", "files"}, // escapes decode before matching
        Case{"GET", "/v2/login", nullptr}));

TEST(PathPattern, OverlapAndSpecificity)
{
    auto p = [](const char *text) { return *PathPattern::parse(QLatin1String(text)); };
    EXPECT_TRUE(PathPattern::overlap(p("/a/*"), p("/a/{x}")));
    EXPECT_FALSE(PathPattern::overlap(p("/a/*"), p("/a/*/b")));
    EXPECT_TRUE(PathPattern::overlap(p("/a/**"), p("/a/b/c")));
    EXPECT_FALSE(PathPattern::overlap(p("/a/b"), p("/a/c")));
    EXPECT_GT(PathPattern::compareSpecificity(p("/a/b"), p("/a/*")), 0);
    EXPECT_GT(PathPattern::compareSpecificity(p("/a/*"), p("/a/**")), 0);
    EXPECT_EQ(PathPattern::compareSpecificity(p("/a/*"), p("/a/{x}")), 0);
    EXPECT_EQ(p("/a.b/*/{x}/**").toRegex(), QStringLiteral("^/a\\.b/[^/]+/[^/]+(/.*)?$"));
    EXPECT_EQ(p("/v1/login").toRegex(), QStringLiteral("^/v1/login/?$"));
    EXPECT_FALSE(PathPattern::parse(QStringLiteral("/a/**/b")).hasValue());
    EXPECT_FALSE(PathPattern::parse(QStringLiteral("a/b")).hasValue());
    EXPECT_FALSE(PathPattern::parse(QStringLiteral("/a/x*")).hasValue());
}

// The path tester's first guess: a path each pattern matches.
TEST(PathPattern, TheExampleIsAPathThePatternMatches)
{
    for (const char *pattern : {"/", "/v1/search", "/v1/users/{id}", "/v1/users/{id}/orders",
             "/static/*", "/files/**", "/v1/{a}/{b}/*"}) {
        const auto parsed = PathPattern::parse(QString::fromLatin1(pattern));
        ASSERT_TRUE(parsed.hasValue()) << pattern;
        const QString example = parsed->example();
        EXPECT_TRUE(parsed->matches(normalizeRequestPath(example)))
            << pattern << " -> " << example.toStdString();
    }
    EXPECT_EQ(PathPattern::parse(QStringLiteral("/v1/users/{id}"))->example(),
        QStringLiteral("/v1/users/42"));
}
