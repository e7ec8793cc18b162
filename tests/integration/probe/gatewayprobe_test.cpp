// The probe against real gateways running Quota Studio's own exports on free loopback ports:
// NGINX must agree with the design where the export is exact, its approximation of a window
// must show as explained (and nothing unexplained), and a plain upstream that limits nothing
// must fail the probe with the first divergence named.
#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/probe/httpprobe.h"
#include "tests/support/livegateway.h"
#include "tests/support/planfiles.h"
#include "tests/support/testsupport.h"

#include <QEventLoop>
#include <QTimer>

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>

using namespace qs;
using limiter::kMicrosPerSecond;

namespace {

// Keyed per client so that every run starts on fresh keys; the windows are short so that a
// few seconds of traffic cross many of them.
const char *const kPolicy = R"(quota_studio: 1
name: probe
defaults: { key: header:X-Api-Key }
routes:
  - id: gcra
    match: { path: /gcra }
    limit: { algorithm: gcra, rate: 20/s, burst: 5 }
  - id: leaky
    match: { path: /leaky }
    limit: { algorithm: leaky_bucket, rate: 10/s, queue: 3, mode: police }
  - id: window
    match: { path: /window }
    limit: { algorithm: fixed_window, limit: 8, window: 1s }
  - id: counter
    match: { path: /counter }
    limit: { algorithm: sliding_window_counter, limit: 8, window: 1s }
  - id: several
    match: { path: /several }
    limits:
      - { name: burst, key: ip, algorithm: gcra, rate: 30/s, burst: 6 }
      - { name: per-key, algorithm: gcra, rate: 11/s, burst: 2 }
)";

Policy policy()
{
    const PolicyReadResult read = readPolicy(QByteArray(kPolicy), QStringLiteral("probe.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return read.policy;
}

struct Gateway {
    std::unique_ptr<test::LiveGateway> process;
    int port = 0, upstreamPort = 0;
};

Gateway startHaproxy(const Policy &p)
{
    const std::string haproxy = test::requireTool("haproxy", QS_HAPROXY);
    if (haproxy.empty())
        return {};
    const ExportResult result = exporterById(QStringLiteral("haproxy"))->exportPolicy(p);
    EXPECT_FALSE(hasErrors(result.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : result.files)
        files[f.name.toStdString()] = f.content.toStdString();
    Gateway g;
    g.process = std::make_unique<test::LiveGateway>(files, std::vector<int>{8090});
    const std::string problem = g.process->startHaproxy(haproxy, "haproxy.cfg");
    EXPECT_EQ(problem, "");
    if (problem.empty())
        g.port = g.process->port(8090);
    return g;
}

Gateway startNginx(const Policy &p)
{
    const std::string nginx = test::requireTool("nginx", QS_NGINX);
    if (nginx.empty())
        return {};
    const ExportResult result = exporterById(QStringLiteral("nginx"))->exportPolicy(p);
    EXPECT_FALSE(hasErrors(result.diagnostics));
    std::map<std::string, std::string> files;
    for (const ExportedFile &f : result.files)
        files[f.name.toStdString()] = f.content.toStdString();
    Gateway g;
    g.process = std::make_unique<test::LiveGateway>(files, std::vector<int>{8080, 8081});
    const std::string problem = g.process->startNginx(nginx, "nginx.conf");
    EXPECT_EQ(problem, "");
    if (problem.empty()) {
        g.port = g.process->port(8080);
        g.upstreamPort = g.process->port(8081);
    }
    return g;
}

ProbeReport probe(const Policy &p, const QString &route, int port, const QString &traffic,
    const QString &gateway = {}, const QString &path = {})
{
    ProbeSettings s;
    s.routeId = route;
    s.url = QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
    s.traffic = *parseTrafficSpec(traffic);
    s.duration = 4 * kMicrosPerSecond;
    s.gateway = gateway;
    s.retryCheckLimit = 0;
    const auto planned = makeProbePlan(p, s);
    EXPECT_TRUE(planned.hasValue());
    std::optional<EnforcedLimit> enforced;
    if (!gateway.isEmpty())
        enforced
            = exporterById(gateway)->enforcedLimit(*toAlgorithmConfig(p.route(route)->limit()));
    HttpProbe run(p, *planned, s, enforced);
    QEventLoop loop;
    QObject::connect(&run, &HttpProbe::finished, &loop, &QEventLoop::quit);
    run.start();
    loop.exec();
    return run.report();
}

void expectAgreement(const ProbeReport &r)
{
    EXPECT_TRUE(r.unreachable.isEmpty()) << r.unreachable.toStdString();
    EXPECT_EQ(r.noResponse, 0);
    EXPECT_GE(r.agreement, 0.99) << toText(r).toStdString();
    EXPECT_TRUE(withinTolerance(r, 0.01));
    // Not a trivial trace: the limit admitted and denied plenty.
    EXPECT_GT(r.observedAllowed, r.responses / 5);
    EXPECT_GT(r.responses - r.observedAllowed, r.responses / 5);
}

} // namespace

TEST(GatewayProbe, NginxAgreesOnGcraAndLeakyBucket)
{
    const Policy p = policy();
    const Gateway g = startNginx(p);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    expectAgreement(probe(p, QStringLiteral("gcra"), g.port,
        QStringLiteral("poisson:60/s,clients=2"), QStringLiteral("nginx")));
    expectAgreement(probe(p, QStringLiteral("leaky"), g.port,
        QStringLiteral("bursts:80/s,on=500ms,off=500ms,clients=2"), QStringLiteral("nginx")));
}

// Two limit_req zones in one location: the burst per address (one key for the probe's clients)
// and a rate per API key. NGINX charges no zone for a request one of them rejects, as the
// design's rule says: the probe predicts each limit and agrees.
TEST(GatewayProbe, NginxAgreesOnARouteWithTwoLimitsAndCountsEachLimitsDenials)
{
    const Policy p = policy();
    const Gateway g = startNginx(p);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    const ProbeReport r = probe(p, QStringLiteral("several"), g.port,
        QStringLiteral("poisson:60/s,clients=3"), QStringLiteral("nginx"));
    expectAgreement(r);
    ASSERT_EQ(r.limits.size(), 2u) << toText(r).toStdString();
    EXPECT_GT(r.limits[0].predictedDenials, 10) << toText(r).toStdString();
    EXPECT_GT(r.limits[1].predictedDenials, 10) << toText(r).toStdString();
    std::printf("[          ] %lld responses, agreement %.4f; denials predicted: burst %lld, "
                "per-key %lld\n",
        static_cast<long long>(r.responses), r.agreement,
        static_cast<long long>(r.limits[0].predictedDenials),
        static_cast<long long>(r.limits[1].predictedDenials));
}

TEST(GatewayProbe, NginxApproximationOfAFixedWindowIsExplained)
{
    const Policy p = policy();
    const Gateway g = startNginx(p);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    // Evenly spaced per client: two requests of one key never in flight together, which the
    // gateway could serve in either order (docs/probe.md, "Reordering").
    const ProbeReport r = probe(p, QStringLiteral("window"), g.port,
        QStringLiteral("steady:30/s,clients=2"), QStringLiteral("nginx"));
    EXPECT_GT(r.explained, 0) << toText(r).toStdString();
    EXPECT_EQ(r.unexplained, 0) << toText(r).toStdString();
    ASSERT_TRUE(r.firstDivergence);
    EXPECT_TRUE(r.firstDivergence->explained);
    EXPECT_TRUE(r.firstDivergence->explanation.contains(QLatin1String("limit_req rate=8r/s")))
        << r.firstDivergence->explanation.toStdString();
    // Without the gateway's model the same divergence would be a defect.
    const ProbeReport bare
        = probe(p, QStringLiteral("window"), g.port, QStringLiteral("steady:30/s,clients=2"));
    EXPECT_GT(bare.unexplained, 0);
}

TEST(GatewayProbe, HaproxySlidingWindowCounterIsTheDesignOrItsDocumentedApproximation)
{
    const Policy p = policy();
    const Gateway g = startHaproxy(p);
    if (!g.port)
        GTEST_SKIP() << "haproxy missing";
    // Under the limit most of the time, with bursts above it: HAProxy's counter agrees with
    // the design until its counting of denied requests and its own period start (the first
    // request, not the epoch) make a difference, which its model predicts.
    const ProbeReport r = probe(p, QStringLiteral("counter"), g.port,
        QStringLiteral("bursts:30/s,on=500ms,off=500ms,clients=2"), QStringLiteral("haproxy"));
    EXPECT_EQ(r.noResponse, 0);
    EXPECT_EQ(r.unexplained, 0) << toText(r).toStdString();
    EXPECT_GE(r.agreement + r.explainedShare, 0.99);
    EXPECT_GT(r.responses - r.observedAllowed, 0) << "a trace that denies";
    // Sustained overload: the design lets 8 per second through, HAProxy keeps a client that
    // keeps sending blocked; explained by the model, not excused.
    const ProbeReport overload = probe(p, QStringLiteral("counter"), g.port,
        QStringLiteral("steady:40/s"), QStringLiteral("haproxy"));
    EXPECT_EQ(overload.unexplained, 0) << toText(overload).toStdString();
    EXPECT_GT(overload.explained, 0) << toText(overload).toStdString();
    EXPECT_LT(overload.observedAllowed, overload.predictedAllowed);
}

TEST(GatewayProbe, AnUpstreamThatLimitsNothingFailsWithTheFirstDivergenceNamed)
{
    const Policy p = policy();
    const Gateway g = startNginx(p);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    // The stand-in backend behind NGINX answers 200 to everything.
    const ProbeReport r = probe(p, QStringLiteral("gcra"), g.upstreamPort,
        QStringLiteral("steady:50/s"), {}, QStringLiteral("/gcra"));
    EXPECT_EQ(r.observedAllowed, r.responses);
    EXPECT_FALSE(withinTolerance(r, 0.01));
    EXPECT_LT(r.agreement, 0.9);
    ASSERT_TRUE(r.firstUnexplained);
    // 20/s, burst 5, at 50/s: request n at 20(n-1) ms is admitted while
    // 50(n-1) - 200 <= 20(n-1), so 7 pass and the eighth is the first the design denies.
    EXPECT_EQ(r.firstUnexplained->request, 8);
    EXPECT_TRUE(r.firstUnexplained->observedAllowed);
    EXPECT_FALSE(r.firstUnexplained->predictedAllowed);
}

TEST(GatewayProbe, ANamedPortNobodyListensOnIsUnreachable)
{
    const Policy p = policy();
    const ProbeReport r
        = probe(p, QStringLiteral("gcra"), test::freeLoopbackPort(), QStringLiteral("steady:10/s"));
    EXPECT_FALSE(r.unreachable.isEmpty());
    EXPECT_EQ(r.responses, 0);
}

// The same two limits in HAProxy: a stick table each, and a request is counted in every table
// before any rule denies it (GATEWAY-LIMITS.md), so a client that keeps sending stays blocked
// where the design would admit half. Each limit's model of the export counts that way and
// explains every such denial; modelled as NGINX does (a denial counted nowhere), 95% were
// unexplained.
TEST(GatewayProbe, HaproxyTwoLimitsCountingDeniedRequestsIsExplainedLimitByLimit)
{
    const Policy p = policy();
    const Gateway g = startHaproxy(p);
    if (!g.port)
        GTEST_SKIP() << "haproxy missing";
    const ProbeReport r = probe(p, QStringLiteral("several"), g.port,
        QStringLiteral("poisson:60/s,clients=3"), QStringLiteral("haproxy"));
    EXPECT_EQ(r.noResponse, 0);
    EXPECT_EQ(r.unexplained, 0) << toText(r).toStdString();
    EXPECT_GT(r.explained, r.responses / 2) << toText(r).toStdString();
    ASSERT_EQ(r.limits.size(), 2u);
    EXPECT_TRUE(r.gatewayModel.contains(QLatin1String("denied requests counted too")))
        << r.gatewayModel.toStdString();
}

namespace {

const ProbePlanFigures *figuresOf(const ProbeReport &r, const char *plan)
{
    for (const ProbePlanFigures &f : r.plans)
        if (f.name == QLatin1String(plan))
            return &f;
    return nullptr;
}

} // namespace

// Clients on three plans through the export (a zone per plan, the plan from X-Plan): each plan's
// decisions are predicted on its own numbers, and agree.
TEST(GatewayProbe, NginxDecidesEachPlanOnItsOwnNumbers)
{
    const PolicyReadResult read
        = readPolicy(QByteArray(test::kHeaderPlansPolicy), QStringLiteral("plans.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const Policy &p = read.policy;
    const Gateway g = startNginx(p);
    if (!g.port)
        GTEST_SKIP() << "nginx missing";
    const ProbeReport r = probe(p, QStringLiteral("search"), g.port,
        QStringLiteral("poisson:90/s,clients=6,plans=free:1/pro:1/enterprise:1"),
        QStringLiteral("nginx"));
    EXPECT_EQ(r.noResponse, 0);
    EXPECT_GE(r.agreement, 0.99) << toText(r).toStdString();
    const ProbePlanFigures *free = figuresOf(r, "free"), *pro = figuresOf(r, "pro"),
                           *enterprise = figuresOf(r, "enterprise");
    ASSERT_TRUE(free && pro && enterprise) << toText(r).toStdString();
    // Every plan was probed, and each limited as designed: free denies most at 15/s a client,
    // pro some, enterprise none.
    EXPECT_GT(free->responses, 40);
    EXPECT_GT(pro->responses, 40);
    EXPECT_GT(enterprise->responses, 40);
    EXPECT_LT(free->observedAllowed, free->responses / 2) << toText(r).toStdString();
    EXPECT_GT(pro->observedAllowed, free->observedAllowed * pro->responses / free->responses)
        << toText(r).toStdString();
    EXPECT_LT(pro->observedAllowed, pro->responses);
    EXPECT_EQ(enterprise->observedAllowed, enterprise->responses);
    std::printf("[          ] %lld responses, agreement %.4f; admitted free %lld/%lld, pro "
                "%lld/%lld, enterprise %lld/%lld\n",
        static_cast<long long>(r.responses), r.agreement,
        static_cast<long long>(free->observedAllowed), static_cast<long long>(free->responses),
        static_cast<long long>(pro->observedAllowed), static_cast<long long>(pro->responses),
        static_cast<long long>(enterprise->observedAllowed),
        static_cast<long long>(enterprise->responses));
}

// The same in HAProxy (a stick table per plan, the plan from X-Plan): its rate counter is the
// export's documented approximation of a GCRA, so each plan's divergence is explained by the
// model of that plan's table, none unexplained.
TEST(GatewayProbe, HaproxyDecidesEachPlanOnItsOwnTable)
{
    const PolicyReadResult read
        = readPolicy(QByteArray(test::kHeaderPlansPolicy), QStringLiteral("plans.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const Policy &p = read.policy;
    const Gateway g = startHaproxy(p);
    if (!g.port)
        GTEST_SKIP() << "haproxy missing";
    const ProbeReport r = probe(p, QStringLiteral("search"), g.port,
        QStringLiteral("poisson:90/s,clients=6,plans=free:1/pro:1/enterprise:1"),
        QStringLiteral("haproxy"));
    EXPECT_EQ(r.noResponse, 0);
    EXPECT_LE(r.unexplainedShare, 0.01) << toText(r).toStdString();
    const ProbePlanFigures *enterprise = figuresOf(r, "enterprise");
    ASSERT_TRUE(enterprise);
    EXPECT_EQ(enterprise->observedAllowed, enterprise->responses);
    EXPECT_LT(figuresOf(r, "free")->observedAllowed, figuresOf(r, "free")->responses);
    std::printf("[          ] %lld responses: agreement %.4f, explained %.4f, unexplained %.4f\n",
        static_cast<long long>(r.responses), r.agreement, r.explainedShare, r.unexplainedShare);
}
