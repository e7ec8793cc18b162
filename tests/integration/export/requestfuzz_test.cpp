// A differential request fuzzer: the exports of one policy run in the real NGINX and HAProxy,
// and seeded random requests built from the forms that broke exports before (any method
// spelling, %XX escapes including %0A %0D %2F %25 %00, dot segments, duplicated headers and
// query parameters in both orders, name case, long keys, absolute-form targets, HTTP/1.0, and
// the plan's header in every spelling a gateway may read differently) go
// to the gateway one after the other. The design decides the same requests in the same order
// on the embedded engine (ConsoleSession), and every answer is compared.
//
// The limits take 2 at once and refill one a minute, and a batch runs well under a minute
// before gateway and design start over, so a decision never depends on timing: any difference
// is a difference in what was matched or keyed. A gateway that refuses a request form (400)
// never passes it to the backend: that is explained when its cause is a documented limit
// (docs/exporters.md, "Request forms"), and the design does not count the refused request.
// Anything else is an unexplained divergence, and the test fails with the requests.
//
// QS_REQUEST_FUZZ_COUNT (default 600 per gateway) and QS_REQUEST_FUZZ_SEED (default 1) set
// the run; tests/bench/request-fuzz-long runs 100 000.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "model/simulation/consolesession.h"
#include "tests/support/exportedgateway.h"
#include "tests/support/livegateway.h"
#include "tests/support/testsupport.h"

#include <QUrl>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>

using namespace qs;
using qs::test::HttpRequest;

namespace {

const char *const kPolicy = R"(quota_studio: 1
name: fuzz
plans: { names: [free, pro], from: header:X-Plan, default: free }
routes:
  - id: exact
    match: { methods: [GET, POST], path: /v1/login }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: star
    match: { path: "/s/*/x" }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: param
    match: { methods: [POST], path: "/k/{id}" }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: rest
    match: { path: /tb/** }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: reserved
    match: { path: "/a:b/c" }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: header
    match: { path: /h/** }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: header-deny
    match: { path: /hd }
    key: header:X-Api-Key
    missing_key: deny
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: query
    match: { path: /q }
    key: query:tenant
    missing_key: ip
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: query-allow
    match: { path: /qa }
    key: query:tenant
    missing_key: allow
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: shadow
    match: { path: /sh }
    mode: shadow
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min }
  - id: several
    match: { path: /m/** }
    key: header:X-Api-Key
    limits:
      - { name: per-key, algorithm: token_bucket, capacity: 2, refill: 1/min }
      - { name: per-tenant, key: query:tenant, missing_key: ip, algorithm: token_bucket, capacity: 3, refill: 1/min }
  - id: planned
    match: { path: /p/** }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min, plans: { pro: { capacity: 4 } } }
)";

std::uint64_t envNumber(const char *name, std::uint64_t fallback)
{
    const char *v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Picks one of a few choices.
template <class T>
const T &pick(std::mt19937_64 &rng, const std::vector<T> &choices)
{
    return choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)];
}

bool chance(std::mt19937_64 &rng, double p)
{
    return std::bernoulli_distribution(p)(rng);
}

// `c` as %XX with a random case of hex letter.
std::string escape(std::mt19937_64 &rng, unsigned char c)
{
    static const char upper[] = "0123456789ABCDEF", lower[] = "0123456789abcdef";
    const char *digits = chance(rng, 0.5) ? upper : lower;
    return std::string{'%', digits[c >> 4], digits[c & 15]};
}

// A path a route may claim, with the forms that broke exports before. `several`: also the route
// with two limits on different keys (NGINX only: HAProxy counts a request in every limit's
// table before any denies, a documented difference the design does not follow).
std::string fuzzPath(std::mt19937_64 &rng, bool several)
{
    static const std::vector<std::string> segments = {"a", "a%2Fb", "%2F", "a%2fb", "x%0Ay", "%0A",
        "%0D%0A", "%00", "%25", "%2574", "a%2F..%2Fb", "a.b", "%2E", "%2e%2E"};
    static const std::vector<std::string> rests
        = {"", "/x", "/x/y", "/%0Ax", "/x%0A/y", "/a%2Fb/c", "/%2F"};
    static const std::vector<std::string> bases
        = {"/v1/login", "/s/{seg}/x", "/k/{seg}", "/tb{rest}", "/a:b/c", "/a%3Ab/c", "/a%3ab/c",
            "/h{rest}", "/hd", "/q", "/qa", "/sh", "/none/{seg}", "/v1/login%0A", "/k/{seg}/{seg}"};
    std::string path = several && chance(rng, 0.15) ? std::string("/m{rest}")
        : chance(rng, 0.15)                         ? std::string("/p{rest}")
                                                    : pick(rng, bases);
    for (std::size_t at; (at = path.find("{seg}")) != std::string::npos;)
        path.replace(at, 5, pick(rng, segments));
    if (const auto at = path.find("{rest}"); at != std::string::npos)
        path.replace(at, 6, pick(rng, rests));
    // Letters spelled as escapes: the gateway must decode them as the design does.
    if (chance(rng, 0.3)) {
        for (std::size_t i = 1; i < path.size(); ++i)
            if (std::isalpha(static_cast<unsigned char>(path[i])) && path[i - 1] != '%'
                && (i < 2 || path[i - 2] != '%') && chance(rng, 0.3)) {
                const std::string e = escape(rng, static_cast<unsigned char>(path[i]));
                path.replace(i, 1, e);
                i += 2;
            }
    }
    // Dot segments, doubled slashes, a trailing slash: normalised by the design.
    if (chance(rng, 0.15))
        path = pick(rng, std::vector<std::string>{"/.", "/x/..", "/", "/%2E", "/y/%2E%2E"}) + path;
    if (chance(rng, 0.1))
        path += "/";
    return path;
}

// 0 to 3 `name=value` pairs around the tenant's own, in any order.
std::string fuzzQuery(std::mt19937_64 &rng, const std::string &tenant)
{
    std::vector<std::string> pairs;
    const std::string spelled = pick(rng,
        std::vector<std::string>{tenant, tenant, "%" + std::string("74") + tenant.substr(1),
            escape(rng, static_cast<unsigned char>(tenant[0])) + tenant.substr(1), ""});
    if (chance(rng, 0.8))
        pairs.push_back(
            pick(rng, std::vector<std::string>{"tenant", "tenant", "%74enant"}) + "=" + spelled);
    for (int i = 0, n = std::uniform_int_distribution<int>(0, 2)(rng); i < n; ++i)
        pairs.push_back(pick(rng,
                            std::vector<std::string>{
                                "TENANT", "Tenant", "tenant", "tenantx", "xtenant", "other"})
            + "=d" + std::to_string(rng() % 1000));
    std::shuffle(pairs.begin(), pairs.end(), rng);
    std::string out;
    for (const std::string &p : pairs)
        out += (out.empty() ? "" : "&") + p;
    return out;
}

struct FuzzRequest {
    HttpRequest http;
    std::string designTarget; // origin form
};

FuzzRequest fuzzRequest(std::mt19937_64 &rng, bool several)
{
    FuzzRequest r;
    r.http.method = pick(
        rng, std::vector<std::string>{"GET", "GET", "POST", "POST", "DELETE", "get", "Post"});
    r.designTarget = fuzzPath(rng, several);
    const std::string tenant = pick(rng, std::vector<std::string>{"t1", "t2"});
    if (chance(rng, 0.6))
        r.designTarget += "?" + fuzzQuery(rng, tenant);
    r.http.target = r.designTarget;
    if (chance(rng, 0.1))
        r.http.target = "http://localhost" + r.designTarget;
    if (chance(rng, 0.1))
        r.http.version = "HTTP/1.0";
    // Few clients, so that limits are reached and the deny side is compared too.
    r.http.source = qs::test::loopbackSource(unsigned(rng() % 6));
    const std::string key = pick(rng, std::vector<std::string>{"k1", "k2"});
    switch (rng() % 6) {
    case 0:
        break; // no key
    case 1:
        r.http.headers.push_back({"X-Api-Key", key});
        break;
    case 2:
        r.http.headers.push_back(
            {pick(rng, std::vector<std::string>{"x-api-key", "X-API-KEY"}), key});
        break;
    case 3: // duplicated, in either order
        r.http.headers.push_back({"X-Api-Key", key});
        r.http.headers.push_back({"X-Api-Key", "d" + std::to_string(rng() % 1000)});
        if (chance(rng, 0.5))
            std::swap(r.http.headers[0], r.http.headers[1]);
        break;
    case 4: { // long: two tokens that share all but their last character
        const std::size_t length = pick(rng, std::vector<std::size_t>{128, 1024, 8192});
        r.http.headers.push_back({"X-Api-Key", std::string(length - 1, 'L') + key.substr(1)});
        break;
    }
    default:
        r.http.headers.push_back({"X-Api-Key", ""});
        break;
    }
    // The plan's header (route `planned`) in the forms gateways read differently: a plan's name
    // exactly, in another case, with blanks, escaped, unknown, empty, twice in either order.
    if (chance(rng, 0.7)) {
        const std::vector<std::string> plans
            = {"pro", "pro", "free", "PRO", "Pro", " pro", "pro ", "%70ro", "gold", "", "pro,free"};
        const std::string name = pick(rng, std::vector<std::string>{"X-Plan", "x-plan", "X-PLAN"});
        r.http.headers.push_back({name, pick(rng, plans)});
        if (chance(rng, 0.15))
            r.http.headers.push_back({"X-Plan", pick(rng, plans)});
    }
    return r;
}

bool hasLowerCase(const std::string &s)
{
    return std::any_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

std::string lower(std::string s)
{
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Whether an undecoded path (lower case) has an empty segment or one that is `.` or `..`,
// spelled plainly or with %2e: what the NGINX export's refusal regex looks for.
bool hasDotOrEmptySegment(const std::string &lowerPath)
{
    std::vector<std::string> segments;
    for (std::size_t start = 1;;) {
        const std::size_t end = lowerPath.find('/', start);
        segments.push_back(lowerPath.substr(start, end - start));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    for (std::size_t i = 0; i < segments.size(); ++i) {
        std::string s; // the segment with %2e read as '.'
        for (std::size_t j = 0; j < segments[i].size(); ++j) {
            const bool dot = segments[i].compare(j, 3, "%2e") == 0;
            s.push_back(dot ? '.' : segments[i][j]);
            j += dot ? 2 : 0;
        }
        const bool last = i + 1 == segments.size();
        if ((s.empty() && !last) || s == "." || s == "..")
            return true;
    }
    return false;
}

// Whether resolving the decoded path's dot segments would climb above `/` (`/k/../..`): the
// design stays at the root, NGINX answers 400.
bool climbsAboveTheRoot(const std::string &path)
{
    const QString decoded = QUrl::fromPercentEncoding(QByteArray::fromStdString(path));
    int depth = 0;
    for (const QString &segment : decoded.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        if (segment == QLatin1String("."))
            continue;
        if (segment == QLatin1String("..")) {
            if (depth == 0)
                return true;
            --depth;
            continue;
        }
        ++depth;
    }
    return false;
}

// Why the gateway may refuse this request outright (docs/exporters.md, "Request forms"), or
// empty when it must not.
std::string knownRefusal(const std::string &gateway, const FuzzRequest &r)
{
    if (gateway != "nginx")
        return {};
    const std::string path = r.designTarget.substr(0, r.designTarget.find('?'));
    const std::string lowerPath = lower(path);
    if (hasLowerCase(r.http.method))
        return "NGINX refuses a method that is not upper case";
    if (lowerPath.find("%00") != std::string::npos)
        return "NGINX refuses an encoded NUL in the path";
    if (climbsAboveTheRoot(path))
        return "NGINX refuses a path whose '..' segments climb above the root";
    for (const auto &[name, value] : r.http.headers)
        if (value.size() >= 8000)
            return "NGINX refuses a header line over its 8 KiB buffer";
    if (lowerPath.find("%2f") != std::string::npos && hasDotOrEmptySegment(lowerPath))
        return "the NGINX export refuses an encoded slash beside a dot or empty segment";
    const auto q = r.designTarget.find('?');
    if (q != std::string::npos) {
        // The first exact `tenant=` value holds an escape: NGINX cannot decode it.
        const std::string query = "&" + r.designTarget.substr(q + 1);
        for (const std::string &name : {std::string("&tenant="), std::string("&%74enant=")})
            if (const auto at = query.find(name); at != std::string::npos) {
                const std::string value = query.substr(
                    at + name.size(), query.find('&', at + name.size()) - at - name.size());
                if (value.find('%') != std::string::npos)
                    return "the NGINX export refuses a query key holding an escape";
            }
    }
    return {};
}

std::string describe(const FuzzRequest &r)
{
    std::string out
        = r.http.method + " " + r.http.target + " " + r.http.version + " from " + r.http.source;
    for (const auto &[name, value] : r.http.headers)
        out += " [" + name + ": "
            + (value.size() > 40 ? value.substr(0, 8) + "…(" + std::to_string(value.size()) + ")"
                                 : value)
            + "]";
    return out;
}

class RequestFuzz : public ::testing::TestWithParam<const char *> { };

} // namespace

TEST_P(RequestFuzz, TheGatewayDecidesEveryRequestAsTheDesignDoes)
{
    const std::string gateway = GetParam();
    const PolicyReadResult read = readPolicy(QByteArray(kPolicy), QStringLiteral("fuzz.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const std::uint64_t total = envNumber("QS_REQUEST_FUZZ_COUNT", 600);
    const std::uint64_t seed = envNumber("QS_REQUEST_FUZZ_SEED", 1);
    constexpr std::uint64_t kBatch = 600; // well under a minute of requests
    std::mt19937_64 rng(seed * 1000003 + (gateway == "nginx" ? 1 : 2));
    std::map<std::string, int> explained;
    std::vector<std::string> unexplained;
    std::uint64_t agreed = 0, denied = 0, severalAgreed = 0, proAgreed = 0;
    for (std::uint64_t done = 0; done < total;) {
        // Gateway and design start over together for each batch.
        const qs::test::ExportedGateway g = qs::test::startExportedGateway(gateway, read.policy);
        if (!g.port)
            GTEST_SKIP() << gateway << " missing";
        ConsoleSession design;
        design.setPolicy(read.policy);
        const auto begin = std::chrono::steady_clock::now();
        for (std::uint64_t i = 0; i < kBatch && done < total; ++i, ++done) {
            const FuzzRequest r = fuzzRequest(rng, gateway == "nginx");
            const int status = qs::test::httpStatus(g.port, r.http);
            if (status == 400) {
                const std::string cause = knownRefusal(gateway, r);
                if (cause.empty())
                    unexplained.push_back("400 from the gateway: " + describe(r));
                else
                    ++explained[cause];
                continue; // never reached the backend, and the design does not count it
            }
            ConsoleRequest c;
            c.method = QString::fromStdString(r.http.method);
            c.target = QString::fromStdString(r.designTarget);
            c.client = QString::fromStdString(r.http.source);
            for (const auto &[name, value] : r.http.headers)
                c.headers.append({QString::fromStdString(name), QString::fromStdString(value)});
            const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - begin)
                                 .count();
            const ConsoleResponse d = design.send(c, now);
            const bool predicted = d.status == 200;
            if (status != 200 && status != 429) {
                unexplained.push_back(std::to_string(status) + " from the gateway: " + describe(r));
            } else if ((status == 200) != predicted) {
                unexplained.push_back(std::string(status == 200 ? "admitted" : "denied")
                    + ", the design " + (predicted ? "admits" : "denies") + " (route "
                    + (d.route ? d.routeId.toStdString() : std::string("none")) + ", key '"
                    + d.key.left(20).toStdString() + "'): " + describe(r));
            } else {
                ++agreed;
                denied += status == 429;
                severalAgreed += d.route && d.routeId == QLatin1String("several");
                proAgreed += d.route && d.routeId == QLatin1String("planned")
                    && d.plan == QLatin1String("pro");
            }
        }
    }
    std::printf("%s, seed %llu: %llu requests, %llu agree (%llu of them denied, %llu on the route "
                "with two limits, %llu on plan pro), %zu unexplained\n",
        gateway.c_str(), (unsigned long long)seed, (unsigned long long)total,
        (unsigned long long)agreed, (unsigned long long)denied, (unsigned long long)severalAgreed,
        (unsigned long long)proAgreed, unexplained.size());
    for (const auto &[cause, n] : explained)
        std::printf("  explained, %d: %s\n", n, cause.c_str());
    EXPECT_GT(denied, total / 20) << "a run that denies too little compares too little";
    EXPECT_GT(proAgreed, total / 100) << "requests on plan pro were compared";
    if (gateway == "nginx") {
        EXPECT_GT(severalAgreed, total / 20) << "the route with two limits was compared";
    }
    EXPECT_TRUE(unexplained.empty());
    for (std::size_t i = 0; i < unexplained.size() && i < 30; ++i)
        ADD_FAILURE() << unexplained[i];
}

INSTANTIATE_TEST_SUITE_P(Targets, RequestFuzz, ::testing::Values("nginx", "haproxy"),
    [](const auto &info) { return std::string(info.param); });
