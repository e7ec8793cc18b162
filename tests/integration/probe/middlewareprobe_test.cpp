// The Redis bundle's FastAPI middleware, as an operator runs it: uvicorn serves a small FastAPI
// app that adds quota_middleware.py with the exported bundle, against a redis-server of the
// test's own. The probe must find it deciding as the design does (it runs the very scripts
// the parity tests check), its Retry-After honest, and with Redis gone, on_store_error obeyed.
#include "limiter/algorithms/clock.h"
#include "limiter/calendar/calendarwindow.h"
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "model/probe/httpprobe.h"
#include "tests/support/livegateway.h"
#include "tests/support/planfiles.h"
#include "tests/support/redisprocess.h"
#include "tests/support/testsupport.h"

#include <QEventLoop>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <hiredis/hiredis.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

using namespace qs;
using limiter::kMicrosPerSecond;

namespace {

const char *const kPolicy = R"(quota_studio: 1
name: fastapi
defaults: { key: header:X-Api-Key, on_store_error: deny, headers: both }
routes:
  - id: tb
    match: { path: /tb }
    limit: { algorithm: token_bucket, capacity: 5, refill: 10/s }
  - id: gcra
    match: { path: /gcra }
    limit: { algorithm: gcra, rate: 20/s, burst: 4 }
)";

// The app of the bundle README's FastAPI section, with the test's Redis.
std::string appSource(int redisPort)
{
    return R"(import os
from fastapi import FastAPI
from fastapi.responses import PlainTextResponse
from quota_middleware import QuotaMiddleware

app = FastAPI()
app.add_middleware(QuotaMiddleware, bundle=os.path.dirname(os.path.abspath(__file__)),
                   redis_url="redis://127.0.0.1:)"
        + std::to_string(redisPort) + R"(/0")


@app.api_route("/{path:path}", methods=["GET", "POST"])
async def anything(path: str):
    return PlainTextResponse("ok\n")
)";
}

struct Service {
    std::unique_ptr<test::LiveGateway> process;
    int port = 0;
};

Service startUvicorn(const Policy &policy, int redisPort)
{
    if (!std::filesystem::exists("/usr/bin/python3")) {
        EXPECT_FALSE(test::runningInCi()) << "python3 missing: scripts/deps installs it";
        return {};
    }
    const ExportResult bundle = exporterById(QStringLiteral("redis-bundle"))->exportPolicy(policy);
    EXPECT_FALSE(hasErrors(bundle.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : bundle.files)
        files[f.name.toStdString()] = f.content.toStdString();
    files["app.py"] = appSource(redisPort);
    Service s;
    s.process = std::make_unique<test::LiveGateway>(files, std::vector<int>{8000});
    s.port = s.process->port(8000);
    const std::string problem = s.process->startProcess(
        {"/usr/bin/python3", "-m", "uvicorn", "--app-dir", "{dir}", "--host", "127.0.0.1", "--port",
            std::to_string(s.port), "app:app"},
        s.port, 30);
    EXPECT_EQ(problem, "");
    if (!problem.empty())
        s.port = 0;
    return s;
}

ProbeReport probe(const Policy &p, const QString &route, int port)
{
    ProbeSettings s;
    s.routeId = route;
    s.url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    // Twice what either route admits per client in the long run.
    s.traffic = *parseTrafficSpec(QStringLiteral("poisson:80/s,clients=2"));
    s.duration = 4 * kMicrosPerSecond;
    s.retryCheckLimit = 5 * kMicrosPerSecond;
    const auto planned = makeProbePlan(p, s);
    EXPECT_TRUE(planned.hasValue());
    HttpProbe run(p, *planned, s, std::nullopt);
    QEventLoop loop;
    QObject::connect(&run, &HttpProbe::finished, &loop, &QEventLoop::quit);
    run.start();
    loop.exec();
    return run.report();
}

} // namespace

TEST(MiddlewareProbe, FastApiWithTheBundleDecidesAsDesignedAndObeysOnStoreError)
{
    const PolicyReadResult read = readPolicy(QByteArray(kPolicy), QStringLiteral("fastapi.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    test::RedisProcess redis;
    ASSERT_TRUE(redis.start());
    const Service service = startUvicorn(read.policy, redis.port());
    if (!service.port)
        GTEST_SKIP() << "python3 missing";

    for (const char *route : {"tb", "gcra"}) {
        const ProbeReport r = probe(read.policy, QString::fromLatin1(route), service.port);
        SCOPED_TRACE(route);
        EXPECT_EQ(r.noResponse, 0);
        EXPECT_GE(r.agreement, 0.99) << toText(r).toStdString();
        EXPECT_GT(r.responses - r.observedAllowed, r.responses / 5) << "a trace that denies";
        // Headers present, parsed and in agreement; Retry-After followed once, successfully.
        EXPECT_TRUE(r.headerIssues.empty()) << toText(r).toStdString();
        EXPECT_TRUE(r.retryCheck.performed);
        EXPECT_TRUE(r.retryCheck.admitted) << "status " << r.retryCheck.status;
        const ComparedRequest *denial = nullptr;
        for (const ComparedRequest &c : r.compared)
            if (!c.observedAllowed && !denial)
                denial = &c;
        ASSERT_TRUE(denial);
        EXPECT_TRUE(denial->sample.headers.retryAfterS);
        EXPECT_TRUE(denial->sample.headers.remaining);
        EXPECT_TRUE(denial->sample.headers.policyQuota);
    }

    // A key of the wrong type makes the script fail inside Redis: an error, not an answer. It
    // must neither admit nor crash the request: on_store_error (deny here) decides.
    std::string out;
    ASSERT_EQ(
        test::run(
            "redis-cli -p " + std::to_string(redis.port()) + " RPUSH qs:tb:wrong-type x", &out),
        0)
        << out;
    const test::HttpRequest wrongType{"GET", "/tb", {{"X-Api-Key", "wrong-type"}}};
    EXPECT_EQ(test::httpStatus(service.port, wrongType), 429);

    // Redis gone: the policy says deny, so every limited request is refused with its status,
    // none admitted and none answered with a crash.
    redis.stop();
    const test::HttpRequest request{"GET", "/tb", {{"X-Api-Key", "after-redis"}}};
    for (int i = 0; i < 3; ++i)
        EXPECT_EQ(test::httpStatus(service.port, request), 429);
    // A path no route claims never touches Redis.
    EXPECT_EQ(test::httpStatus(service.port, {"GET", "/elsewhere", {}}), 200);
}

// The middleware read a query key through dict(parse_qsl()), which keeps the last value: a
// client that appended `&tenant=<random>` chose its own bucket. The design reads the first.
TEST(MiddlewareProbe, AQueryKeyIsItsFirstValue)
{
    const PolicyReadResult read = readPolicy(QByteArray(R"(quota_studio: 1
name: tenants
defaults: { on_store_error: deny }
routes:
  - id: q
    match: { path: /q }
    key: query:tenant
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/min }
)"),
        QStringLiteral("tenants.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    test::RedisProcess redis;
    ASSERT_TRUE(redis.start());
    const Service service = startUvicorn(read.policy, redis.port());
    if (!service.port)
        GTEST_SKIP() << "python3 missing";
    int ok = 0;
    for (int i = 0; i < 6; ++i)
        ok += test::httpStatus(
                  service.port, {"GET", "/q?tenant=n4&tenant=r" + std::to_string(i), {}})
            == 200;
    EXPECT_EQ(ok, 3) << "counted by the first tenant=";
    // Decoded as the design decodes it: one tenant, three spellings.
    ok = 0;
    for (const char *spelling : {"a+b", "a%2Bb", "%61+b", "a%2bb"})
        ok += test::httpStatus(service.port, {"GET", std::string("/q?tenant=") + spelling, {}})
            == 200;
    EXPECT_EQ(ok, 3) << "'+' is a plus, as the design reads it";
}

// Several limits in the middleware: one call of several.lua per request. A burst per client
// address and a quota per API key, the trace of the NGINX live test: every status known, and a
// denied request takes from no limit. The headers carry one item per limit.
TEST(MiddlewareProbe, SeveralLimitsAreOneCallAndADenialTakesFromNone)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: several
defaults: { headers: both }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limits:
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 2, refill: 1/min }
      - { name: quota, algorithm: token_bucket, capacity: 3, refill: 1/min }
)",
        QStringLiteral("several.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    test::RedisProcess redis;
    ASSERT_TRUE(redis.start());
    const Service service = startUvicorn(read.policy, redis.port());
    if (!service.port)
        GTEST_SKIP() << "python3 missing";
    const std::string a = test::loopbackSource(301), b = test::loopbackSource(302);
    const test::HttpRequest::Headers k1{{"X-Api-Key", "k1"}}, k2{{"X-Api-Key", "k2"}};
    struct Step {
        const std::string &source;
        const test::HttpRequest::Headers &key;
        int status;
    };
    const std::vector<Step> trace = {{a, k1, 200}, {a, k1, 200}, {a, k1, 429}, {b, k1, 200},
        {b, k1, 429}, {b, k2, 200}, {b, k2, 429}};
    for (std::size_t i = 0; i < trace.size(); ++i) {
        test::HttpRequest request{"GET", "/search", trace[i].key};
        request.source = trace[i].source;
        EXPECT_EQ(test::httpStatus(service.port, request), trace[i].status) << "step " << i;
    }
    // One request's headers: an item per limit, what each has left.
    test::HttpRequest request{"GET", "/search", {{"X-Api-Key", "k3"}}};
    request.source = test::loopbackSource(303);
    const test::HttpResponse response = test::httpExchange(service.port, request);
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.header("RateLimit-Policy"), "\"burst\";q=2;w=120, \"quota\";q=3;w=180");
    EXPECT_EQ(response.header("RateLimit"), "\"burst\";r=1;t=60, \"quota\";r=2;t=60");
}

// Calendar quotas under uvicorn: the middleware computes the windows with zoneinfo and sends
// them with the call (docs/redis-layout.md, "Calendar windows"). A day in Chatham (+12:45 or
// +13:45) on a route of its own, and a month in Berlin beside a burst limit (several.lua):
// the third request is denied and Retry-After, RateLimit's t and w count to the real local
// boundary, as the engine's calendar computes it for the same moment.
TEST(MiddlewareProbe, CalendarQuotasResetAtTheZonesMidnight)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: calendar
defaults: { key: header:X-Api-Key, headers: both }
routes:
  - id: daily
    match: { path: /daily }
    limit: { algorithm: fixed_window, limit: 2, calendar: day, time_zone: Pacific/Chatham }
  - id: monthly
    match: { path: /monthly }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 10, refill: 1/s }
      - { name: month, algorithm: fixed_window, limit: 2, calendar: month, time_zone: Europe/Berlin }
)",
        QStringLiteral("calendar.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    test::RedisProcess redis;
    ASSERT_TRUE(redis.start());
    const Service service = startUvicorn(read.policy, redis.port());
    if (!service.port)
        GTEST_SKIP() << "python3 missing";
    std::string why;
    const limiter::CalendarWindows chathamDays(
        limiter::CalendarUnit::Day, limiter::calendar::TimeZone::load("Pacific/Chatham", why));
    const limiter::CalendarWindows berlinMonths(
        limiter::CalendarUnit::Month, limiter::calendar::TimeZone::load("Europe/Berlin", why));
    const auto secondsTo = [](const limiter::CalendarWindows &windows) {
        const limiter::Micros now = limiter::SystemClock().now();
        return std::pair{(windows.at(now).end - now) / kMicrosPerSecond,
            (windows.at(now).end - windows.at(now).start) / kMicrosPerSecond};
    };
    const test::HttpRequest::Headers key{{"X-Api-Key", "k1"}};
    for (const char *path : {"/daily", "/monthly"}) {
        const auto &windows = std::string(path) == "/daily" ? chathamDays : berlinMonths;
        EXPECT_EQ(test::httpStatus(service.port, {"GET", path, key}), 200) << path;
        EXPECT_EQ(test::httpStatus(service.port, {"GET", path, key}), 200) << path;
        const auto [left, length] = secondsTo(windows);
        const test::HttpResponse denied = test::httpExchange(service.port, {"GET", path, key});
        EXPECT_EQ(denied.status, 429) << path;
        const long retry = std::stol(denied.header("Retry-After"));
        // Rounded up to whole seconds, and a second or two may pass between here and there.
        EXPECT_GE(retry, left - 2) << path;
        EXPECT_LE(retry, left + 2) << path;
        const std::string policy = denied.header("RateLimit-Policy");
        EXPECT_NE(policy.find("w=" + std::to_string(length)), std::string::npos)
            << path << ": " << policy;
    }
}

// Plans under uvicorn: the middleware finds the plan from the key's entry in the manifest's map
// and decides each limit on that plan's parameters and keys, in one call of several.lua; an
// unlimited plan keeps no state and is never denied. Each request counts in its route's metrics
// and its plan's share. The same counts as the live NGINX and HAProxy
// (livegateway_test.cpp, LivePlans) and the test console.
TEST(MiddlewareProbe, EachPlanDecidesOnItsOwnNumbersAndKeys)
{
    QTemporaryDir dir;
    const PolicyReadResult read = test::readPolicyWithMap(dir, R"(quota_studio: 1
name: plans
redis: { metrics: true }
plans:
  names: [free, pro, enterprise]
  from: { key: "header:X-Api-Key", map: plans.map }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min, plans: { pro: { capacity: 5 }, enterprise: unlimited } }
)",
        "k-free free\nk-pro pro\nk-ent enterprise\n");
    ASSERT_FALSE(hasErrors(read.diagnostics));
    test::RedisProcess redis;
    ASSERT_TRUE(redis.start());
    const Service service = startUvicorn(read.policy, redis.port());
    if (!service.port)
        GTEST_SKIP() << "python3 missing";
    const auto admitted = [&](const char *key) {
        int ok = 0;
        for (int i = 0; i < 8; ++i)
            ok += test::httpStatus(service.port, {"GET", "/search", {{"X-Api-Key", key}}}) == 200;
        return ok;
    };
    EXPECT_EQ(admitted("k-pro"), 5);
    EXPECT_EQ(admitted("k-free"), 2);
    EXPECT_EQ(admitted("k-ent"), 8);
    EXPECT_EQ(admitted("K-PRO"), 2) << "not pro's key: the default plan";
    const test::HttpResponse response
        = test::httpExchange(service.port, {"GET", "/search", {{"X-Api-Key", "k-pro-2"}}});
    EXPECT_EQ(response.header("RateLimit-Policy"), "\"default\";q=2;w=120") << "free's numbers";
    // The keys carry the plan: <prefix>:<route>:<limit>:<plan>:<client key>.
    redisContext *c = redisConnect("127.0.0.1", redis.port());
    ASSERT_TRUE(c && !c->err);
    const auto exists = [&](const char *key) {
        auto *reply = static_cast<redisReply *>(redisCommand(c, "EXISTS %s", key));
        const long long n = reply && reply->type == REDIS_REPLY_INTEGER ? reply->integer : -1;
        freeReplyObject(reply);
        return n;
    };
    EXPECT_EQ(exists("qs:search:default:pro:k-pro"), 1);
    EXPECT_EQ(exists("qs:search:default:free:k-free"), 1);
    EXPECT_EQ(exists("qs:search:default:enterprise:k-ent"), 0) << "unlimited: nothing counted";

    // The metrics: each request in its route's totals and its plan's share. A second's counts
    // go to Redis on the first request of a later second.
    QThread::msleep(1100);
    test::httpStatus(service.port, {"GET", "/search", {{"X-Api-Key", "k-ent"}}});
    std::map<std::string, long long> fields;
    auto *keys = static_cast<redisReply *>(
        redisCommand(c, "SCAN 0 MATCH qs:search:~metrics:* COUNT 1000"));
    ASSERT_TRUE(keys && keys->type == REDIS_REPLY_ARRAY && keys->elements == 2);
    for (std::size_t k = 0; k < keys->element[1]->elements; ++k) {
        auto *hash = static_cast<redisReply *>(
            redisCommand(c, "HGETALL %s", keys->element[1]->element[k]->str));
        for (std::size_t f = 0; hash && f + 1 < hash->elements; f += 2)
            fields[hash->element[f]->str] += std::stoll(hash->element[f + 1]->str);
        freeReplyObject(hash);
    }
    freeReplyObject(keys);
    // free: k-free 2 of 8, K-PRO 2 of 8, k-pro-2 1 of 1; pro 5 of 8; enterprise 8 of 8.
    EXPECT_EQ(fields,
        (std::map<std::string, long long>{{"a", 18}, {"d", 15}, {"a:free", 5}, {"d:free", 12},
            {"a:pro", 5}, {"d:pro", 3}, {"a:enterprise", 8}}));
    redisFree(c);

    // The bundle's plans.map, edited while the service runs: read again within a second, so a
    // new key is on its plan without a restart; a broken edit keeps the last good map.
    const std::string mapPath = service.process->dir() + "/plans.map";
    {
        std::ofstream map(mapPath, std::ios::app);
        map << "k-new pro\n";
    }
    QThread::msleep(1100);
    EXPECT_EQ(admitted("k-new"), 5) << "k-new is pro now (a fresh key: pro's capacity)";
    {
        std::ofstream map(mapPath, std::ios::app);
        map << "k-broken gold\n"; // no such plan
    }
    QThread::msleep(1100);
    EXPECT_EQ(admitted("k-pro"), 0) << "still pro (spent): the broken edit changed nothing";
    EXPECT_EQ(admitted("k-new"), 0) << "still pro (spent)";
}
