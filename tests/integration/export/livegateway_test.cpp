// Exported configurations run in the real NGINX and HAProxy and are hammered over HTTP: a
// limit holds for every method a route claims, for un-normalised spellings of its path, and
// for keys that would collide if their parts were simply concatenated. `nginx -t` passing
// proves none of this; these tests send the requests.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "tests/support/livegateway.h"
#include "tests/support/testsupport.h"

#include <gtest/gtest.h>

#include <memory>

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

struct Gateway {
    std::unique_ptr<qs::test::LiveGateway> process;
    int port = 0;
};

// Exports `yaml` to `target` and starts the gateway on it; fails the test when it cannot.
Gateway start(const char *target, const char *yaml)
{
    const bool nginx = std::string(target) == "nginx";
    const std::string tool = nginx ? qs::test::requireTool("nginx", QS_NGINX)
                                   : qs::test::requireTool("haproxy", QS_HAPROXY);
    if (tool.empty())
        return {};
    const PolicyReadResult read = readPolicy(QByteArray(yaml), QStringLiteral("live.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    const ExportResult result
        = exporterById(QString::fromLatin1(target))->exportPolicy(read.policy);
    EXPECT_FALSE(hasErrors(result.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : result.files)
        files[f.name.toStdString()] = f.content.toStdString();
    const std::vector<int> ports = nginx ? std::vector<int>{8080, 8081} : std::vector<int>{8090};
    Gateway g;
    g.process = std::make_unique<qs::test::LiveGateway>(files, ports);
    const std::string problem = nginx ? g.process->startNginx(tool, "nginx.conf")
                                      : g.process->startHaproxy(tool, "haproxy.cfg");
    EXPECT_EQ(problem, "");
    if (problem.empty())
        g.port = g.process->port(ports.front());
    return g;
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

INSTANTIATE_TEST_SUITE_P(Targets, LiveGateway, ::testing::Values("nginx", "haproxy"),
    [](const auto &info) { return std::string(info.param); });
