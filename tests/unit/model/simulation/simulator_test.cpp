#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/simulation/simulator.h"

#include <gtest/gtest.h>

using namespace qs;
using limiter::kMicrosPerMinute;
using limiter::kMicrosPerSecond;

namespace {

Policy policyWith(const char *limit, const char *path = "/api/**")
{
    const QByteArray text
        = QByteArray("quota_studio: 1\nname: sim\nroutes:\n  - id: r\n    match: { path: ") + path
        + " }\n    limit: " + limit + "\n";
    const PolicyReadResult r = readPolicy(text, QStringLiteral("sim.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics)) << r.diagnostics.value(0).toString().toStdString();
    return r.policy;
}

SimulationSettings settings(const char *traffic, limiter::Micros duration)
{
    SimulationSettings s;
    s.traffic = *parseTrafficSpec(QLatin1String(traffic));
    s.duration = duration;
    return s;
}

double seriesMax(const Series &s)
{
    double m = 0;
    for (double v : s.max)
        m = std::max(m, v);
    return m;
}

} // namespace

TEST(Simulator, BoundarySpikeShowsTwiceTheLimitForFixedWindowOnlyOnceForSlidingLog)
{
    const auto s = settings("spike:100,window=1m", 3 * kMicrosPerMinute);
    const Policy fixed = policyWith("{ algorithm: fixed_window, limit: 100, window: 1m }");
    const Policy log = policyWith("{ algorithm: sliding_window_log, limit: 100, window: 1m }");
    const SimulationResult f = simulate(fixed, fixed.routes[0], s);
    const SimulationResult l = simulate(log, log.routes[0], s);
    ASSERT_TRUE(f.error.isEmpty()) << f.error.toStdString();
    EXPECT_EQ(f.summary.offered, 500u); // 100 each side of the 1m and 2m edges, 100 before 3m
    EXPECT_EQ(f.summary.maxAdmittedInWindow, 200);
    EXPECT_LE(l.summary.maxAdmittedInWindow, 100);
    EXPECT_EQ(l.summary.window, kMicrosPerMinute);
}

TEST(Simulator, SteadyTrafficBelowTheLimitIsFullyAdmittedByEveryAlgorithm)
{
    const Policy p = policyWith("{ algorithm: token_bucket, capacity: 20, refill: 10/s }");
    const auto config = *toAlgorithmConfig(p.routes[0].limit());
    const auto s = settings("steady:8/s,clients=3", 2 * kMicrosPerMinute);
    const auto configs = comparableConfigs(config);
    ASSERT_EQ(configs.size(), 6u);
    for (const auto &c : configs) {
        const SimulationResult r = simulate(p, p.routes[0], s, nullptr, {}, &c);
        EXPECT_EQ(r.summary.offered, 960u) << r.summary.algorithm.toStdString();
        EXPECT_EQ(r.summary.allowed, r.summary.offered) << r.summary.algorithm.toStdString();
        EXPECT_DOUBLE_EQ(r.summary.acceptance, 1.0);
    }
}

TEST(Simulator, ComparableConfigsShareRateAndBurst)
{
    const auto configs
        = comparableConfigs(limiter::GcraConfig{limiter::Rate{5, kMicrosPerSecond}, 10});
    // Over a long flood every algorithm settles at about 5/s (windows: 10 per 2 s). The sliding
    // window counter settles at 9 per window (4.5/s): the previous window's weight reaches zero
    // only at the boundary, so the 10th request never fits (docs/simulation.md).
    const Policy p = policyWith("{ algorithm: gcra, rate: 5/s, burst: 10 }");
    for (const auto &c : configs) {
        const SimulationResult r = simulate(
            p, p.routes[0], settings("steady:100/s", 10 * kMicrosPerMinute), nullptr, {}, &c);
        const double perSecond = double(r.summary.allowed) / 600.0;
        const bool counter = limiter::algorithmOf(c) == limiter::Algorithm::SlidingWindowCounter;
        EXPECT_NEAR(perSecond, counter ? 4.5 : 5.0, 0.1) << r.summary.algorithm.toStdString();
    }
}

TEST(Simulator, LeakyShapingReportsDelays)
{
    const Policy p = policyWith("{ algorithm: leaky_bucket, rate: 5/s, queue: 20, mode: shape }");
    const SimulationResult r
        = simulate(p, p.routes[0], settings("bursts:50/s,on=1s,off=9s", kMicrosPerMinute));
    EXPECT_GT(r.summary.delayed, 0u);
    EXPECT_GT(r.summary.p99DelayUs, r.summary.p50DelayUs);
    EXPECT_LE(r.summary.p99DelayUs, 4.3e6); // never beyond the queue: 20 waiting at 200 ms
}

TEST(Simulator, SameSeedSameResultOtherSeedOtherResult)
{
    const Policy p = policyWith("{ algorithm: gcra, rate: 10/s, burst: 5 }");
    auto s = settings("zipf:200/s,clients=500", kMicrosPerMinute);
    const SimulationResult a = simulate(p, p.routes[0], s);
    const SimulationResult b = simulate(p, p.routes[0], s);
    EXPECT_EQ(a.summary.allowed, b.summary.allowed);
    EXPECT_EQ(a.summary.offered, b.summary.offered);
    EXPECT_EQ(a.series[1].value, b.series[1].value);
    s.seed = 2;
    const SimulationResult c = simulate(p, p.routes[0], s);
    EXPECT_NE(a.summary.offered, c.summary.offered);
}

TEST(Simulator, ReplaysACommittedAccessLogAndReportsMalformedLines)
{
    const Policy p
        = policyWith("{ algorithm: token_bucket, capacity: 2, refill: 1/min }", "/v1/login");
    SimulationSettings s
        = settings("replay:" QS_TEST_DATA_DIR "/access.log", 10 * kMicrosPerMinute);
    const SimulationResult r = simulate(p, p.routes[0], s);
    ASSERT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    EXPECT_EQ(r.summary.offered, 5u); // five login lines readable (one is a search)
    EXPECT_EQ(r.summary.otherRoutes, 1u); // the search
    EXPECT_EQ(r.summary.allowed, 4u); // 2 for .7 (third denied), 2 for .8
    EXPECT_EQ(r.skippedLines, 3);
    ASSERT_EQ(r.problems.size(), 3u);
    EXPECT_EQ(r.problems[0].line, 4);
    EXPECT_EQ(r.problems[1].line, 6);
    EXPECT_EQ(r.problems[2].line, 9);
}

TEST(Simulator, DownsamplingKeepsPeaksAndCancelStops)
{
    const Policy p = policyWith("{ algorithm: gcra, rate: 1000/s, burst: 1000 }");
    // 10 minutes: raw buckets of 100 ms; 50 points: 120 raw buckets per point, one of them
    // holding the burst. A mean would show 4 req/s; the kept maximum shows 500.
    SimulationSettings s = settings("bursts:500/s,on=100ms,off=59900ms", 10 * kMicrosPerMinute);
    s.maxPoints = 50;
    const SimulationResult r = simulate(p, p.routes[0], s);
    const Series &offered = r.series[0];
    EXPECT_LE(offered.t.size(), 50u);
    EXPECT_NEAR(seriesMax(offered), 500.0, 1.0) << "the 100 ms burst survives downsampling";
    EXPECT_LT(*std::max_element(offered.value.begin(), offered.value.end()), 10.0);
    std::atomic<bool> cancel{true};
    EXPECT_TRUE(simulate(p, p.routes[0], s, &cancel).cancelled);
}

TEST(TrafficSpec, ExplainsBadSpecs)
{
    for (const char *bad : {"steady", "steady:fast", "bursts:10/s", "spike:10", "ramp:1/s",
             "zipf:10/s", "warp:10/s", "steady:10/s,clients=0", "poisson:10/s,on=1s",
             "steady:1/s,keyless=2", "steady:1/s,keyless=x"})
        EXPECT_FALSE(parseTrafficSpec(QLatin1String(bad)).hasValue()) << bad;
    const auto ok = parseTrafficSpec(QStringLiteral("ramp:10/s..1000/s,clients=4"));
    ASSERT_TRUE(ok.hasValue());
    EXPECT_EQ(ok->rateTo.count, 1000);
}

TEST(Simulator, KeylessRequestsFollowTheRoutesMissingKey)
{
    // 100 clients, 10 requests each over 10 s, a fixed window of 10 per minute: every keyed
    // client fits, so what is denied is what missing_key does with the keyless share.
    const auto s = settings("steady:100/s,clients=100,keyless=0.3", 10 * kMicrosPerSecond);
    const auto run = [&](const char *mode) {
        const QByteArray text = QByteArray("quota_studio: 1\nname: sim\nroutes:\n  - id: r\n"
                                           "    match: { path: /api }\n"
                                           "    key: header:X-Api-Key\n    missing_key: ")
            + mode + "\n    limit: { algorithm: fixed_window, limit: 10, window: 1m }\n";
        const Policy p = readPolicy(text, QStringLiteral("sim.yaml")).policy;
        return simulate(p, p.routes[0], s).summary;
    };
    const SimulationSummary shared = run("shared"), ip = run("ip"), deny = run("deny"),
                            allow = run("allow");
    ASSERT_EQ(shared.offered, 1000u);
    EXPECT_NEAR(double(shared.keyless), 300, 45) << "about 30% lack the key";
    EXPECT_EQ(shared.keyless, deny.keyless) << "the same requests whatever the mode";
    EXPECT_EQ(shared.allowed, 1000 - shared.keyless + 10) << "keyless share one window of 10";
    EXPECT_EQ(ip.allowed, 1000u) << "each client's keyless requests fit its address's window";
    EXPECT_EQ(deny.denied, deny.keyless);
    EXPECT_EQ(allow.allowed, 1000u);
    EXPECT_EQ(allow.denied, 0u);

    const Policy byIp = policyWith("{ algorithm: fixed_window, limit: 10, window: 1m }");
    EXPECT_EQ(simulate(byIp, byIp.routes[0], s).summary.keyless, 0u)
        << "an ip key cannot be missing";
}

TEST(Simulator, SeriesPointsAreRoundAndTheLastIsNotACutShortDrop)
{
    // 61.5 s: the raw buckets are 10 ms, so a last partial bucket would show as a fall to 0.
    const auto s = settings("steady:100/s", 61'500'000);
    const Policy p = policyWith("{ algorithm: gcra, rate: 1000/s, burst: 10 }");
    SimulationSettings run = s;
    run.maxPoints = 600;
    const SimulationResult r = simulate(p, p.routes[0], run);
    const Series &allowed = r.series[1];
    ASSERT_GT(allowed.t.size(), 2u);
    const double step = allowed.t[1] - allowed.t[0];
    bool round = false;
    for (const double w : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0})
        round |= std::abs(step - w) < 1e-9;
    EXPECT_TRUE(round) << "a point covers " << step << " s";
    EXPECT_NEAR(allowed.value.back(), 100.0, 5.0) << "the last point is a whole interval";
    EXPECT_NEAR(allowed.value.front(), 100.0, 5.0);
}

// A burst limit, a daily quota and a shadow candidate on one route: every request is decided by
// all three. Three clients at 10/s each for two hours: the burst (20, 10/s) never denies, the
// daily quota admits 10 000 per client and then decides every denial, the candidate (500 per
// hour) would deny but never does, and a denied request is charged to no limit.
TEST(Simulator, SeveralLimitsAreDecidedTogetherAndCountedEach)
{
    const PolicyReadResult read = readPolicy(R"(quota_studio: 1
name: sim
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 20, refill: 10/s }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d }
      - { name: candidate, algorithm: sliding_window_counter, limit: 500, window: 1h, mode: shadow }
)",
        QStringLiteral("sim.yaml"));
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const SimulationResult r = simulate(read.policy, read.policy.routes[0],
        settings("steady:30/s,clients=3", 2 * 60 * kMicrosPerMinute));
    ASSERT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    const SimulationSummary &s = r.summary;
    EXPECT_EQ(s.offered, 216'000u);
    EXPECT_EQ(s.allowed, 30'000u);
    EXPECT_EQ(s.denied, 186'000u);
    ASSERT_EQ(s.limits.size(), 3u);
    EXPECT_EQ(s.limits[0].name, "burst");
    EXPECT_EQ(s.limits[0].denied, 0u);
    EXPECT_EQ(s.limits[1].allowed, 30'000u);
    EXPECT_EQ(s.limits[1].deciding, 186'000u) << "the daily quota decided every denial";
    EXPECT_EQ(s.limits[1].maxAdmittedInWindow, 30'000) << "10 000 a day for each of 3 clients";
    EXPECT_TRUE(s.limits[2].shadow);
    EXPECT_GT(s.limits[2].denied, 0u) << "the candidate would have denied";
    EXPECT_EQ(s.limits[2].deciding, 0u) << "and never did";
    // The tracked client's remaining quota, one curve per limit.
    int curves = 0;
    for (const Series &series : r.series)
        curves += series.name.startsWith(QStringLiteral("remaining "));
    EXPECT_EQ(curves, 3);
}

namespace {

// free: 2 at once, pro: 5, enterprise unlimited; one more a minute, so within 10 s a client has
// what its plan holds at once. Plans named in a header (traffic assigns them directly).
Policy plannedSimulationPolicy()
{
    const PolicyReadResult r = readPolicy(R"(quota_studio: 1
name: plans
plans: { names: [free, pro, enterprise], from: header:X-Plan }
routes:
  - id: search
    match: { path: /search }
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/min, plans: { pro: { capacity: 5 }, enterprise: unlimited } }
)",
        QStringLiteral("plans.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics));
    return r.policy;
}

} // namespace

TEST(Simulator, EachClientIsOnOnePlanAndEachPlanGetsItsNumbers)
{
    const Policy policy = plannedSimulationPolicy();
    SimulationSettings s;
    s.traffic = *parseTrafficSpec(
        QStringLiteral("steady:10/s,clients=30,plans=free:1/pro:1/enterprise:1"));
    s.duration = 10 * kMicrosPerSecond;
    const SimulationResult r = simulate(policy, policy.routes[0], s);
    ASSERT_TRUE(r.error.isEmpty()) << r.error.toStdString();
    const auto &plans = r.summary.plans;
    ASSERT_EQ(plans.size(), 3u);
    std::uint64_t offered = 0, allowed = 0;
    std::uint32_t clients = 0;
    for (const PlanSummary &p : plans) {
        offered += p.offered;
        allowed += p.allowed;
        clients += p.clients;
        EXPECT_EQ(p.allowed + p.denied, p.offered) << p.name.toStdString();
        EXPECT_GE(p.clients, 4u) << p.name.toStdString() << ": a third of 30, give or take";
    }
    EXPECT_EQ(offered, r.summary.offered);
    EXPECT_EQ(allowed, r.summary.allowed);
    EXPECT_EQ(clients, 30u);
    // Every client sends 3 or 4 requests in 10 s: free admits its 2, pro all (5 > 4),
    // enterprise all without counting.
    EXPECT_EQ(plans[0].allowed, 2u * plans[0].clients);
    EXPECT_EQ(plans[1].allowed, plans[1].offered);
    EXPECT_EQ(plans[2].allowed, plans[2].offered);
    EXPECT_EQ(plans[2].denied, 0u);

    // The same seed, the same plans; without plans= every client is on the default (free).
    EXPECT_EQ(simulate(policy, policy.routes[0], s).summary.plans[1].clients, plans[1].clients);
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:10/s,clients=30"));
    const SimulationResult defaults = simulate(policy, policy.routes[0], s);
    EXPECT_EQ(defaults.summary.plans[0].clients, 30u);
    EXPECT_EQ(defaults.summary.allowed, 60u);
}

TEST(Simulator, APlanTheTrafficNamesMustBeThePolicys)
{
    const Policy policy = plannedSimulationPolicy();
    SimulationSettings s;
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:10/s,clients=3,plans=gold:1"));
    EXPECT_EQ(simulate(policy, policy.routes[0], s).error,
        QStringLiteral(
            "traffic plans: 'gold' is not a plan of this policy (free, pro, enterprise)"));
    EXPECT_FALSE(parseTrafficSpec(QStringLiteral("steady:10/s,plans=free")));
    EXPECT_FALSE(parseTrafficSpec(QStringLiteral("steady:10/s,plans=free:0")));
}
