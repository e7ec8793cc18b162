// Exported configurations run in the real NGINX and HAProxy and are hammered over HTTP: a
// limit holds for every method a route claims, for un-normalised spellings of its path, and
// for keys that would collide if their parts were simply concatenated. `nginx -t` passing
// proves none of this; these tests send the requests.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "model/simulation/consolesession.h"
#include "tests/support/exportedgateway.h"
#include "tests/support/livegateway.h"
#include "tests/support/planfiles.h"
#include "tests/support/testsupport.h"

#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

using namespace qs;
using qs::test::HttpRequest;
using qs::test::httpStatus;

namespace {

// Every route allows `capacity` at once and then one per minute, so within a test the
// admissions are exactly the capacity.
const char *const kPolicy = R"(quota_studio: 1
name: live
routes:
  - id: items-post
    match: { methods: [POST], path: /v1/items }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: items-get
    match: { methods: [GET], path: /v1/items }
    limit: { algorithm: token_bucket, capacity: 4, refill: 1/min }
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 1, refill: 1/min }
  - id: v1
    match: { path: /v1/** }
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: tb
    match: { path: /tb/x }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
)";

const char *const kCombinedKeyPolicy = R"(quota_studio: 1
name: keys
routes:
  - id: pair
    match: { path: /pair }
    key: [header:X-A, header:X-B]
    limit: { algorithm: token_bucket, capacity: 1, refill: 1/min }
)";

// One route per missing_key choice, each keyed by X-Api-Key with 2 at once; `tenant` by query.
const char *const kMissingKeyPolicy = R"(quota_studio: 1
name: missing
defaults: { key: header:X-Api-Key }
routes:
  - id: shared
    match: { path: /shared }
    missing_key: shared
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: ip
    match: { path: /ip }
    missing_key: ip
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: deny
    match: { path: /deny }
    missing_key: deny
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: allow
    match: { path: /allow }
    missing_key: allow
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: tenant
    match: { path: /tenant }
    key: query:tenant
    missing_key: deny
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
)";

// Request forms that gateways parse differently from the design (issue "Exports hold against any
// request"): every route takes 3 at once, then one a minute.
const char *const kFormsPolicy = R"(quota_studio: 1
name: forms
routes:
  - id: login
    match: { path: /login }
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: tb
    match: { path: /tb/** }
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: k
    match: { methods: [POST], path: "/k/{id}" }
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: items
    match: { methods: [GET], path: /v1/items }
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: tenant
    match: { path: /q }
    key: query:tenant
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: api
    match: { path: /h }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
)";

// A burst per client address and a quota per API key on one route. Both refill one a minute,
// so within a test a client has 2 and a key 3.
const char *const kSeveralLimitsPolicy = R"(quota_studio: 1
name: several
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limits:
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 2, refill: 1/min }
      - { name: quota, algorithm: token_bucket, capacity: 3, refill: 1/min }
)";

using Gateway = qs::test::ExportedGateway;

// Reads `yaml`, exports it to `target` and starts the gateway on it.
Gateway start(const char *target, const char *yaml)
{
    const PolicyReadResult read = readPolicy(QByteArray(yaml), QStringLiteral("live.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return qs::test::startExportedGateway(target, read.policy);
}

// How many of `n` identical requests the gateway let through (200).
int admitted(int port, const HttpRequest &request, int n)
{
    int ok = 0;
    for (int i = 0; i < n; ++i) {
        const int status = httpStatus(port, request);
        EXPECT_TRUE(status == 200 || status == 429)
            << request.method << " " << request.target << " answered " << status;
        ok += status == 200;
    }
    return ok;
}

// A fresh loopback address per call: an `ip`-keyed route starts with a full bucket for it.
std::string freshSource()
{
    static unsigned next = 1000;
    return qs::test::loopbackSource(next++);
}

HttpRequest from(std::string source, HttpRequest request)
{
    request.source = std::move(source);
    return request;
}

class LiveGateway : public ::testing::TestWithParam<const char *> { };

} // namespace

TEST_P(LiveGateway, EachMethodIsLimitedByTheRouteThatClaimsIt)
{
    const Gateway g = start(GetParam(), kPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    EXPECT_EQ(admitted(g.port, {"POST", "/v1/items", {}}, 4), 2) << "POST /v1/items";
    EXPECT_EQ(admitted(g.port, {"GET", "/v1/items", {}}, 6), 4) << "GET /v1/items";
    // POST /v1/login is login's; GET /v1/login falls through to /v1/**.
    EXPECT_EQ(admitted(g.port, {"POST", "/v1/login", {}}, 3), 1) << "POST /v1/login";
    EXPECT_EQ(admitted(g.port, {"GET", "/v1/login", {}}, 5), 3) << "GET /v1/login";
    EXPECT_EQ(admitted(g.port, {"DELETE", "/v1/items", {}}, 2), 0)
        << "DELETE /v1/items is v1's, whose 3 are spent";
}

TEST_P(LiveGateway, UnnormalisedSpellingsOfAPathShareItsLimit)
{
    const Gateway g = start(GetParam(), kPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    EXPECT_EQ(admitted(g.port, {"GET", "/tb/x", {}}, 2), 2);
    for (const char *spelling : {"//tb/x", "/./tb/x", "/x/../tb/x", "/%74b/x", "/tb//x/"})
        EXPECT_EQ(httpStatus(g.port, {"GET", spelling, {}}), 429) << spelling << " bypassed";
}

TEST_P(LiveGateway, ARequestWithoutItsKeyFollowsMissingKey)
{
    const Gateway g = start(GetParam(), kMissingKeyPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    const HttpRequest::Headers none, empty{{"X-Api-Key", ""}}, k1{{"X-Api-Key", "k1"}};

    EXPECT_EQ(admitted(g.port, {"GET", "/shared", none}, 3), 2) << "keyless share one bucket";
    EXPECT_EQ(admitted(g.port, {"GET", "/shared", empty}, 1), 0) << "an empty key is missing";
    EXPECT_EQ(admitted(g.port, {"GET", "/shared", k1}, 3), 2) << "k1 keeps its own bucket";

    EXPECT_EQ(admitted(g.port, {"GET", "/ip", none}, 3), 2) << "counted under the address";
    EXPECT_EQ(admitted(g.port, {"GET", "/ip", k1}, 3), 2);

    EXPECT_EQ(admitted(g.port, {"GET", "/deny", none}, 2), 0) << "refused outright";
    EXPECT_EQ(admitted(g.port, {"GET", "/deny", empty}, 1), 0);
    EXPECT_EQ(admitted(g.port, {"GET", "/deny", k1}, 3), 2) << "a refusal counted nowhere";

    EXPECT_EQ(admitted(g.port, {"GET", "/allow", none}, 5), 5) << "not limited, by choice";
    EXPECT_EQ(admitted(g.port, {"GET", "/allow", k1}, 3), 2);

    EXPECT_EQ(admitted(g.port, {"GET", "/tenant", none}, 1), 0);
    EXPECT_EQ(admitted(g.port, {"GET", "/tenant?tenant=", none}, 1), 0);
    EXPECT_EQ(admitted(g.port, {"GET", "/tenant?tenant=acme", none}, 3), 2);
}

// NGINX's $uri is decoded, and `.` does not match a newline: `/tb/%0Ax` fell to `location /`.
TEST_P(LiveGateway, AnEncodedNewlineStaysInItsRoute)
{
    const Gateway g = start(GetParam(), kFormsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    for (const char *target : {"/tb/%0Ax", "/tb/x%0A/y", "/tb/%0A", "/tb/%0D%0A"})
        EXPECT_EQ(admitted(g.port, from(freshSource(), {"GET", target, {}}), 5), 3) << target;
    // And a newline does not stretch a literal: `/login\n` is no route's (`$` matched before it).
    EXPECT_EQ(admitted(g.port, from(freshSource(), {"GET", "/login%0A", {}}), 5), 5);
}

// The design keeps `a%2Fb` as one segment; NGINX decoded it to `/k/a/b` and no route matched.
TEST_P(LiveGateway, AnEncodedSlashStaysInsideItsSegment)
{
    const Gateway g = start(GetParam(), kFormsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    for (const char *target : {"/k/a%2Fb", "/k/a%2fb", "/k/%2F", "/k/a%2F..%2Fb", "/k/a%2Fb/",
             "/%6B/a%2Fb", "/k/a%2Fb?x=/../y"})
        EXPECT_EQ(admitted(g.port, from(freshSource(), {"POST", target, {}}), 5), 3) << target;
    // Beside a dot or empty segment NGINX cannot resolve it as the design does: refused, never
    // admitted past the limit.
    for (const char *target : {"/x/../k/a%2Fb", "//k/a%2Fb", "/k/./a%2Fb"}) {
        const HttpRequest r = from(freshSource(), {"POST", target, {}});
        int ok = 0;
        for (int i = 0; i < 5; ++i)
            ok += httpStatus(g.port, r) == 200;
        EXPECT_LE(ok, 3) << target;
    }
}

// NGINX's $arg_tenant is undecoded and takes the name without case; the design decodes the
// value of the first `tenant=`.
TEST_P(LiveGateway, AQueryKeyIsReadAsTheDesignReadsIt)
{
    const Gateway g = start(GetParam(), kFormsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    const bool nginx = std::string(GetParam()) == "nginx";
    // One tenant, four spellings: 3 in all. NGINX cannot decode and refuses the escaped ones.
    int ok = 0;
    for (const char *spelling : {"n1", "%6E%31", "%6e%31", "n%31"})
        for (int i = 0; i < 2; ++i) {
            const int status = httpStatus(
                g.port, from(freshSource(), {"GET", std::string("/q?tenant=") + spelling, {}}));
            ok += status == 200;
            if (nginx && std::string(spelling) != "n1") {
                EXPECT_EQ(status, 400) << spelling;
            }
        }
    EXPECT_EQ(ok, nginx ? 2 : 3);
    // The first exact `tenant=` counts, whatever comes before or after it: all five are n4's,
    // and n4 has 3 (keyed on r1 … r5, all five would pass).
    ok = 0;
    for (const char *target : {"/q?TENANT=r1&tenant=n4", "/q?Tenant=r2&tenant=n4",
             "/q?tenant=n4&tenant=r3", "/q?tenantx=r4&tenant=n4", "/q?xtenant=r5&tenant=n4"})
        ok += httpStatus(g.port, from(freshSource(), {"GET", target, {}})) == 200;
    EXPECT_EQ(ok, 3);
}

// A second X-Api-Key chose the bucket on HAProxy; a long token was cut to 128 characters.
TEST_P(LiveGateway, AHeaderKeyIsItsFirstWholeValue)
{
    const Gateway g = start(GetParam(), kFormsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    int ok = 0;
    for (int i = 0; i < 6; ++i)
        ok += httpStatus(g.port,
                  from(freshSource(),
                      {"GET", "/h",
                          {{"X-Api-Key", "hc"},
                              {"X-Api-Key", std::string("r").append(std::to_string(i))}}}))
            == 200;
    EXPECT_EQ(ok, 3) << "counted by the first value";
    EXPECT_EQ(admitted(g.port, {"GET", "/h", {{"X-Api-Key", "a,b"}}}, 4), 3);
    EXPECT_EQ(admitted(g.port, {"GET", "/h", {{"X-Api-Key", "a,c"}}}, 4), 3)
        << "a value with a comma is one value";
    for (const std::size_t length : {std::size_t(200), std::size_t(1024), std::size_t(6000)}) {
        const std::string common(length - 1, 't');
        EXPECT_EQ(admitted(g.port, {"GET", "/h", {{"X-Api-Key", common + "A"}}}, 4), 3) << length;
        EXPECT_EQ(admitted(g.port, {"GET", "/h", {{"X-Api-Key", common + "B"}}}, 4), 3)
            << length << ": B has a bucket of its own";
    }
}

// The design compares methods without case; HAProxy's method ACL compared with it. NGINX
// refuses a lower-case method outright (400).
TEST_P(LiveGateway, AMethodIsAMethodInAnyCase)
{
    const Gateway g = start(GetParam(), kFormsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    const bool nginx = std::string(GetParam()) == "nginx";
    for (const char *method : {"get", "Get", "gET"}) {
        const HttpRequest r = from(freshSource(), {method, "/v1/items", {}});
        int ok = 0;
        for (int i = 0; i < 5; ++i) {
            const int status = httpStatus(g.port, r);
            ok += status == 200;
            if (nginx) {
                EXPECT_EQ(status, 400);
            }
        }
        EXPECT_EQ(ok, nginx ? 0 : 3) << method;
    }
}

// HAProxy refuses combined keys (one sample per table), so this one is NGINX's alone.
TEST(LiveNginx, CombinedKeyPartsCannotRunTogether)
{
    const Gateway g = start("nginx", kCombinedKeyPolicy);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/pair", {{"X-A", "ab"}, {"X-B", "c"}}}), 200);
    EXPECT_EQ(httpStatus(g.port, {"GET", "/pair", {{"X-A", "a"}, {"X-B", "bc"}}}), 200)
        << "'ab'+'c' and 'a'+'bc' are two clients";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/pair", {{"X-A", "a"}, {"X-B", "bc"}}}), 429);
}

// Every limit decides, and a request one limit denies takes nothing from the other: the trace
// tells a gateway that charged the admitting limit from one that did not. The design (the test
// console) and NGINX answer it alike. HAProxy counts a request in every tracked table before
// any deny (GATEWAY-LIMITS.md), as its export warns: its answers are the ones that rule gives.
TEST_P(LiveGateway, EveryLimitOfARouteDecidesAndADenialTakesFromNone)
{
    const bool haproxy = std::string(GetParam()) == "haproxy";
    const Gateway g = start(GetParam(), kSeveralLimitsPolicy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    const std::string a = freshSource(), b = freshSource();
    const HttpRequest::Headers k1{{"X-Api-Key", "k1"}}, k2{{"X-Api-Key", "k2"}};
    struct Step {
        const std::string &source;
        const HttpRequest::Headers &key;
        int design, haproxy;
        const char *why;
    };
    // HAProxy's counts: a 2 per 2m for each address, 3 per 3m for each key, denied included.
    const std::vector<Step> trace = {
        {a, k1, 200, 200, "a: burst 1 left, k1: 2 left"},
        {a, k1, 200, 200, "a: burst 0 left, k1: 1 left"},
        {a, k1, 429, 429, "a's burst denies; k1 keeps its 1 (HAProxy: k1 has counted 3)"},
        {b, k1, 200, 429, "b: burst 1 left, k1: 0 left (HAProxy: k1 at 4 of 3)"},
        {b, k1, 429, 429, "k1's quota denies; b keeps its 1"},
        {b, k2, 200, 429, "b's last one (HAProxy: b has counted 3 of 2)"},
        {b, k2, 429, 429, "b's burst denies"},
    };
    const PolicyReadResult read
        = readPolicy(QByteArray(kSeveralLimitsPolicy), QStringLiteral("live.yaml"));
    ConsoleSession design;
    design.setPolicy(read.policy);
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const Step &step = trace[i];
        EXPECT_EQ(httpStatus(g.port, from(step.source, {"GET", "/search", step.key})),
            haproxy ? step.haproxy : step.design)
            << GetParam() << ", step " << i << ": " << step.why;
        ConsoleRequest request;
        request.target = QStringLiteral("/search");
        request.client = QString::fromStdString(step.source);
        request.headers
            = {{QStringLiteral("X-Api-Key"), QString::fromStdString(step.key.front().second)}};
        EXPECT_EQ(design.send(request, limiter::Micros(i)).status, step.design)
            << "the design, step " << i << ": " << step.why;
    }
    if (haproxy) {
        bool warned = false;
        for (const Diagnostic &d :
            exporterById(QStringLiteral("haproxy"))->exportPolicy(read.policy).diagnostics)
            warned = warned || d.message.contains(QStringLiteral("before any limit denies it"));
        EXPECT_TRUE(warned) << "the export says HAProxy charges every limit";
    }
}

// Each limit's own key and missing_key: a request that lacks either limit's header is refused
// (missing_key: deny on both), one with both passes.
TEST_P(LiveGateway, ARequestLackingOneLimitsKeyIsRefusedByThatLimit)
{
    const Gateway g = start(GetParam(), R"(quota_studio: 1
name: keys
routes:
  - id: search
    match: { path: /search }
    limits:
      - { name: a, key: header:X-A, missing_key: deny, algorithm: token_bucket, capacity: 5, refill: 1/min }
      - { name: b, key: header:X-B, missing_key: deny, algorithm: token_bucket, capacity: 5, refill: 1/min }
)");
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/search", {{"X-A", "1"}}}), 429) << "lacks X-B";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/search", {{"X-B", "1"}}}), 429) << "lacks X-A";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/search", {}}), 429) << "lacks both";
    EXPECT_EQ(httpStatus(g.port, {"GET", "/search", {{"X-A", "1"}, {"X-B", "1"}}}), 200);
}

INSTANTIATE_TEST_SUITE_P(Targets, LiveGateway, ::testing::Values("nginx", "haproxy"),
    [](const auto &info) { return std::string(info.param); });

namespace {

// Three plans found by the API key in a map file beside the policy: free 2 at once, pro 5,
// enterprise unlimited; then one a minute.
Policy readPlanned(const QTemporaryDir &dir, const QByteArray &from)
{
    // K-ENT and k-ent one case apart, `default` a word NGINX's map reserves: each a key.
    const PolicyReadResult read = qs::test::readPolicyWithMap(dir,
        "quota_studio: 1\nname: plans\nplans:\n  names: [free, pro, enterprise]\n  from: " + from
            + R"(
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min, plans: { pro: { capacity: 5 }, enterprise: unlimited } }
)",
        "k-free free\nk-pro pro\nk-ent enterprise\nK-ENT enterprise\ndefault pro\n");
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return read.policy;
}

// How many of `n` requests with these headers the design admits.
int designAdmits(ConsoleSession &design, const HttpRequest::Headers &headers, int n)
{
    ConsoleRequest request;
    request.target = QStringLiteral("/search");
    for (const auto &[name, value] : headers)
        request.headers.append({QString::fromStdString(name), QString::fromStdString(value)});
    int ok = 0;
    for (int i = 0; i < n; ++i)
        ok += design.send(request, 0).status == 200;
    return ok;
}

} // namespace

// Both gateways with three plans (NGINX: a zone per plan; HAProxy: a table per plan in the
// limit's stick counter). Within these tests each key sends one burst, so HAProxy's counting of
// denied requests does not show: both admit what the design does.
class LivePlans : public ::testing::TestWithParam<const char *> { };

TEST_P(LivePlans, EachPlanCountsInItsOwnTableAndAKeyMapsToItsPlanExactly)
{
    QTemporaryDir dir;
    const Policy policy = readPlanned(dir, "{ key: \"header:X-Api-Key\", map: plans.map }");
    const Gateway g = qs::test::startExportedGateway(GetParam(), policy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    ConsoleSession design;
    design.setPolicy(policy);
    struct Case {
        const char *key;
        int admitted;
        const char *why;
    };
    const Case cases[] = {
        {"k-pro", 5, "pro's capacity"},
        {"k-free", 2, "free's capacity"},
        {"k-ent", 8, "enterprise is unlimited"},
        {"K-PRO", 2, "a key in another case is not pro's key: the default plan"},
        {"k-pro ", 5, "the same key with a trailing blank (both trim it): pro, already spent"},
        {"k-unknown", 2, "a key not in the map: the default plan"},
        {"K-ENT", 8, "a key one case apart from another, each in the map"},
        {"K-Ent", 2, "neither of them"},
        {"default", 5, "a key spelled like a word of NGINX's map"},
    };
    for (const Case &c : cases) {
        const HttpRequest::Headers headers{{"X-Api-Key", c.key}};
        const int expected = std::string(c.key) == "k-pro " ? 0 : c.admitted;
        EXPECT_EQ(admitted(g.port, {"GET", "/search", headers}, 8), expected)
            << GetParam() << ": " << c.why;
        EXPECT_EQ(designAdmits(design, headers, 8), expected) << "the design: " << c.why;
    }
}

TEST_P(LivePlans, APlanNamedInAHeaderMustBeSpelledExactly)
{
    QTemporaryDir dir;
    const Policy policy = readPlanned(dir, "header:X-Plan");
    const Gateway g = qs::test::startExportedGateway(GetParam(), policy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    ConsoleSession design;
    design.setPolicy(policy);
    const HttpRequest::Headers pro{{"X-Api-Key", "a"}, {"X-Plan", "pro"}};
    const HttpRequest::Headers shouting{{"X-Api-Key", "b"}, {"X-Plan", "PRO"}};
    const HttpRequest::Headers none{{"X-Api-Key", "c"}};
    EXPECT_EQ(admitted(g.port, {"GET", "/search", pro}, 8), 5);
    EXPECT_EQ(designAdmits(design, pro, 8), 5);
    EXPECT_EQ(admitted(g.port, {"GET", "/search", shouting}, 8), 2) << "not a plan: the default";
    EXPECT_EQ(designAdmits(design, shouting, 8), 2);
    EXPECT_EQ(admitted(g.port, {"GET", "/search", none}, 8), 2);
    EXPECT_EQ(designAdmits(design, none, 8), 2);
}

// The plan's header in the request forms gateways parse differently: sent twice (the first is
// the plan, in both orders), its name in another case, an empty value, and a key of 4000
// characters. Each case has a key of its own; the design decides every one alike.
TEST_P(LivePlans, ThePlansHeaderIsReadAsTheDesignReadsItInEveryForm)
{
    QTemporaryDir dir;
    const Policy policy = readPlanned(dir, "header:X-Plan");
    const Gateway g = qs::test::startExportedGateway(GetParam(), policy);
    if (!g.port)
        GTEST_SKIP() << GetParam() << " missing";
    ConsoleSession design;
    design.setPolicy(policy);
    struct Case {
        HttpRequest::Headers headers;
        int admitted;
        const char *why;
    };
    const std::string longKey(4000, 'k');
    const std::vector<Case> cases = {
        {{{"X-Api-Key", "d1"}, {"X-Plan", "pro"}, {"X-Plan", "free"}}, 5, "twice: the first, pro"},
        {{{"X-Api-Key", "d2"}, {"X-Plan", "free"}, {"X-Plan", "pro"}}, 2, "twice: the first, free"},
        {{{"X-Api-Key", "d3"}, {"x-plan", "pro"}}, 5, "a header's name in any case"},
        {{{"X-Api-Key", "d4"}, {"X-PLAN", "enterprise"}}, 8, "likewise, enterprise: unlimited"},
        {{{"X-Api-Key", "d5"}, {"X-Plan", ""}}, 2, "an empty plan: the default"},
        {{{"X-Api-Key", "d6"}, {"X-Plan", " pro "}}, 5, "blanks around it are not the value"},
        {{{"X-Api-Key", longKey}, {"X-Plan", "pro"}}, 5, "a long key on pro"},
    };
    for (const Case &c : cases) {
        EXPECT_EQ(admitted(g.port, {"GET", "/search", c.headers}, 8), c.admitted)
            << GetParam() << ": " << c.why;
        EXPECT_EQ(designAdmits(design, c.headers, 8), c.admitted) << "the design: " << c.why;
    }
}

INSTANTIATE_TEST_SUITE_P(Targets, LivePlans, ::testing::Values("nginx", "haproxy"),
    [](const auto &info) { return std::string(info.param); });

namespace {

// One command on HAProxy's runtime API (a unix socket), and its answer.
std::string runtimeCommand(const std::string &socketPath, const std::string &command)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socketPath.c_str());
    std::string answer;
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0
        && ::write(fd, (command + "\n").data(), command.size() + 1)
            == ssize_t(command.size() + 1)) {
        char buffer[4096];
        for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
            answer.append(buffer, std::size_t(n));
    }
    ::close(fd);
    return answer;
}

} // namespace

// The plans' map is HAProxy's own map file beside haproxy.cfg: a key added on the runtime API
// moves its client to the plan at once, without a reload (NGINX's map needs one).
TEST(HaproxyPlanMap, AnEntryAddedAtRuntimeTakesEffectWithoutAReload)
{
    const std::string haproxy = qs::test::requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        GTEST_SKIP() << "haproxy missing";
    QTemporaryDir dir;
    const Policy policy = readPlanned(dir, "{ key: \"header:X-Api-Key\", map: plans.map }");
    const ExportResult result = exporterById(QStringLiteral("haproxy"))->exportPolicy(policy);
    ASSERT_FALSE(hasErrors(result.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : result.files)
        files[f.name.toStdString()] = f.content.toStdString();
    ASSERT_TRUE(files.count("qs-plans.map")) << "the map is a file of its own";
    EXPECT_NE(files["qs-plans.map"].find("\nk-pro pro\n"), std::string::npos)
        << files["qs-plans.map"];
    // The operator's runtime socket, beside what the export wrote.
    const std::string socket = dir.filePath(QStringLiteral("admin.sock")).toStdString();
    std::string &cfg = files["haproxy.cfg"];
    cfg.insert(cfg.find("global\n") + 7, "    stats socket " + socket + " level admin\n");
    qs::test::LiveGateway gateway(files, {8090});
    ASSERT_EQ(gateway.startHaproxy(haproxy, "haproxy.cfg"), "");
    const int port = gateway.port(8090);
    const HttpRequest::Headers fresh{{"X-Api-Key", "k-new"}};
    EXPECT_EQ(admitted(port, {"GET", "/search", fresh}, 3), 2) << "not in the map: free";

    const std::string maps = runtimeCommand(socket, "show map");
    // "# id (file) description", then "<id> (qs-plans.map) …".
    const auto id = maps.rfind("# id ", 0) == 0 ? maps.find('\n') + 1 : 0;
    ASSERT_NE(maps.find("qs-plans.map"), std::string::npos) << maps;
    std::string mapId(1, '#'); // (`"#" + substr` trips GCC 12's -Wrestrict, a known false alarm)
    mapId += maps.substr(id, maps.find(' ', id) - id);
    const std::string added = runtimeCommand(socket, "add map " + mapId + " k-new pro");
    EXPECT_EQ(added.find("not"), std::string::npos) << added;
    EXPECT_EQ(admitted(port, {"GET", "/search", fresh}, 8), 5) << "now pro: its own table, 5";
}
