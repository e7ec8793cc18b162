// The probe's logic without a network: header parsing, the plan's safety rules, and the
// request-by-request comparison on traces whose right answers are known.
#include "model/export/exporter.h"
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/probe/probereport.h"

#include <QJsonObject>

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace qs;
using limiter::kMicrosPerSecond;

namespace {

const char *const kPolicy = R"(quota_studio: 1
name: probe
defaults: { key: header:X-Api-Key }
routes:
  - id: login
    match: { methods: [POST], path: /v1/login }
    limit: { algorithm: gcra, rate: 1/s, burst: 1 }
  - id: v1
    match: { path: /v1/** }
    limit: { algorithm: gcra, rate: 10/s, burst: 5 }
  - id: window
    match: { path: /w }
    limit: { algorithm: fixed_window, limit: 5, window: 1s }
  - id: byip
    match: { path: /ip }
    key: ip
    limit: { algorithm: token_bucket, capacity: 3, refill: 1/s }
)";

Policy policy()
{
    const PolicyReadResult read = readPolicy(kPolicy, QStringLiteral("probe.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return read.policy;
}

ProbeSettings settings(
    const QString &route, const QString &url = QStringLiteral("http://127.0.0.1:8080"))
{
    ProbeSettings s;
    s.routeId = route;
    s.url = QUrl(url);
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:20/s"));
    s.duration = 2 * kMicrosPerSecond;
    return s;
}

ProbePlan plan(const Policy &p, const ProbeSettings &s)
{
    auto made = makeProbePlan(p, s);
    EXPECT_TRUE(made.hasValue()) << made.error().toStdString();
    return *made;
}

// The plan for `route` of `p` under `traffic` for `duration`.
ProbePlan plan(const Policy &p, const char *route, const char *traffic, limiter::Micros duration)
{
    ProbeSettings s = settings(route);
    s.traffic = *parseTrafficSpec(QString::fromLatin1(traffic));
    s.duration = duration;
    return plan(p, s);
}

// When the gateway decides a request and when its answer arrives, after the send.
struct Timing {
    limiter::Micros delay = 0, elapsed = 0;
};

// The gateway's answers when request n (1-based) has timing(n); each client has its own state.
std::vector<ProbeSample> answersTimed(
    const ProbePlan &plan, const GatewayLimit &config, const std::function<Timing(qint64)> &timing)
{
    std::map<std::uint32_t, GatewayState> states;
    std::vector<ProbeSample> out;
    for (const PlannedRequest &r : plan.requests) {
        auto [it, fresh] = states.try_emplace(r.client, freshState(config));
        ProbeSample s;
        s.number = qint64(out.size()) + 1;
        s.client = r.client;
        s.offset = r.at;
        s.sentAt = 1'700'000'000LL * kMicrosPerSecond + r.at;
        const Timing t = timing(s.number);
        s.elapsed = t.elapsed;
        s.status = decide(config, it->second, s.sentAt + t.delay, 1).allowed ? 200 : 429;
        out.push_back(s);
    }
    return out;
}

// The gateway's answers when it runs `config` at send time + `delay` (+ `jitter` on every
// other request: a constant delay only shifts the whole trace and changes no decision).
std::vector<ProbeSample> answers(const ProbePlan &plan, const GatewayLimit &config,
    limiter::Micros delay = 200, limiter::Micros jitter = 0)
{
    return answersTimed(plan, config, [=](qint64 n) {
        return Timing{delay + (n % 2 ? jitter : 0), 2 * delay};
    });
}

ProbeReport compare(const Policy &p, const ProbePlan &plan, const std::vector<ProbeSample> &samples,
    std::optional<EnforcedLimit> gateway = {})
{
    ProbeComparator c(p, plan, std::move(gateway));
    for (const ProbeSample &s : samples)
        c.add(s);
    return summarize(c, plan, QStringLiteral("steady:20/s"), {});
}

// A one-route policy with `limit`, probed with Poisson traffic at 40/s for 20 s.
struct OneRoute {
    Policy policy;
    ProbePlan plan;
    GatewayLimit limit;
};

OneRoute oneRoute(const char *limit)
{
    const QByteArray yaml = QByteArray("quota_studio: 1\nname: r\nroutes:\n  - id: r\n"
                                       "    match: { path: /r }\n    limit: ")
        + limit + '\n';
    const PolicyReadResult read = readPolicy(yaml, QStringLiteral("r.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return {read.policy, plan(read.policy, "r", "poisson:40/s", 20 * kMicrosPerSecond),
        *toAlgorithmConfig(read.policy.routes[0].limit())};
}

} // namespace

TEST(ObservedHeaders, ReadsEveryDraftFormAndXRateLimit)
{
    const ObservedHeaders structured = parseRateLimitHeaders(
        {{"RateLimit", "\"default\";r=3;t=5"}, {"RateLimit-Policy", "\"default\";q=10;w=60"},
            {"Retry-After", "7"}, {"Content-Type", "text/plain"}},
        0);
    EXPECT_EQ(structured.remaining, 3);
    EXPECT_EQ(structured.resetS, 5);
    EXPECT_EQ(structured.policyQuota, 10);
    EXPECT_EQ(structured.policyWindowS, 60);
    EXPECT_EQ(structured.retryAfterS, 7);
    EXPECT_TRUE(structured.problems.isEmpty());
    EXPECT_FALSE(structured.raw.contains(QLatin1String("Content-Type")));

    const ObservedHeaders older = parseRateLimitHeaders(
        {{"RateLimit", "limit=10, remaining=4, reset=2"}, {"RateLimit-Policy", "10;w=1"}}, 0);
    EXPECT_EQ(older.limit, 10);
    EXPECT_EQ(older.remaining, 4);
    EXPECT_EQ(older.policyQuota, 10);

    const ObservedHeaders x = parseRateLimitHeaders(
        {{"X-RateLimit-Limit", "100"}, {"X-RateLimit-Remaining", "0"}, {"x-ratelimit-reset", "9"}},
        0);
    EXPECT_EQ(x.limit, 100);
    EXPECT_EQ(x.remaining, 0);
    EXPECT_EQ(x.resetS, 9);
}

TEST(ObservedHeaders, RetryAfterAsADateAndGarbageAsAProblem)
{
    // Thu, 01 Jan 1970 00:01:40 GMT is 100 s after the epoch.
    const ObservedHeaders date
        = parseRateLimitHeaders({{"Retry-After", "Thu, 01 Jan 1970 00:01:40 GMT"}}, 90);
    EXPECT_EQ(date.retryAfterS, 10);
    const ObservedHeaders bad
        = parseRateLimitHeaders({{"Retry-After", "soon"}, {"RateLimit", "q=1"}}, 0);
    EXPECT_FALSE(bad.retryAfterS);
    EXPECT_EQ(bad.problems.size(), 2);
}

TEST(ProbePlan, ProbesLoopbackOrTheNamedHostOnly)
{
    const Policy p = policy();
    for (const char *url : {"http://127.0.0.1:1", "http://localhost:8080", "http://[::1]:80",
             "https://127.0.0.2:8443"})
        EXPECT_TRUE((makeProbePlan(p, settings("v1", url))).hasValue()) << url;
    const auto refused = makeProbePlan(p, settings("v1", "http://staging.example:8080"));
    ASSERT_FALSE(refused.hasValue());
    EXPECT_TRUE(refused.error().contains(QLatin1String("--allow-host staging.example")));
    ProbeSettings allowed = settings("v1", "http://staging.example:8080");
    allowed.allowedHost = QStringLiteral("staging.example");
    EXPECT_TRUE((makeProbePlan(p, allowed)).hasValue());
    // Only that one host, and only http(s).
    EXPECT_TRUE(!(makeProbePlan(p, settings("v1", "http://other.example:8080"))).hasValue());
    EXPECT_TRUE(!(makeProbePlan(p, settings("v1", "ftp://127.0.0.1/"))).hasValue());
    EXPECT_FALSE(makeProbePlan(p, settings("nope")).hasValue());
}

TEST(ProbePlan, CapsBoundTheRun)
{
    ProbeSettings s = settings("v1");
    s.maxRequests = 7;
    EXPECT_EQ(plan(policy(), s).requests.size(), 7u);
    s.maxRequests = 0;
    EXPECT_FALSE(makeProbePlan(policy(), s).hasValue());
    s = settings("v1");
    s.duration = kProbeMaxDuration + 1;
    EXPECT_FALSE(makeProbePlan(policy(), s).hasValue());
    // 20/s for 2 s: at 0, 50 ms, …, 2 s (the end is within the duration).
    EXPECT_EQ(plan(policy(), settings("v1")).requests.size(), 41u);
}

TEST(ProbePlan, RequestsAPathThePolicyGivesToTheRoute)
{
    const Policy p = policy();
    const ProbePlan v1 = plan(p, settings("v1"));
    EXPECT_EQ(v1.method, QStringLiteral("GET"));
    EXPECT_EQ(v1.url.path(), QStringLiteral("/v1"));
    const ProbePlan login = plan(p, settings("login"));
    EXPECT_EQ(login.method, QStringLiteral("POST"));
    EXPECT_EQ(login.url.path(), QStringLiteral("/v1/login"));
    // A path the operator gives that another route claims is used, with a warning.
    const ProbePlan given = plan(p, settings("window", "http://127.0.0.1:8080/v1/x"));
    EXPECT_EQ(given.url.path(), QStringLiteral("/v1/x"));
    ASSERT_EQ(given.warnings.size(), 1);
    EXPECT_TRUE(given.warnings.front().contains(QLatin1String("does not resolve")));
}

TEST(ProbePlan, IdentitiesFollowTheRouteKey)
{
    const Policy p = policy();
    ProbeSettings s = settings("v1");
    s.clients = 3;
    const ProbePlan keyed = plan(p, s);
    EXPECT_EQ(keyed.identityHeaders, QStringList{QStringLiteral("X-Api-Key")});
    const auto headers = keyed.headersFor({0, 2, false});
    ASSERT_EQ(headers.size(), 1);
    EXPECT_EQ(headers.front().second, keyed.identity(2));
    EXPECT_NE(keyed.identity(1), keyed.identity(2));
    EXPECT_TRUE(keyed.headersFor({0, 2, true}).isEmpty()); // keyless
    EXPECT_TRUE(keyed.warnings.isEmpty());
    // Fresh identities per run: the gateway has no state for them yet.
    EXPECT_NE(plan(p, s).identity(0), keyed.identity(0));

    const ProbePlan byIp = plan(p, settings("byip"));
    EXPECT_TRUE(byIp.identityHeaders.isEmpty());
    ASSERT_EQ(byIp.warnings.size(), 1);
    EXPECT_TRUE(byIp.warnings.front().contains(QLatin1String("one key")));
}

TEST(ProbeComparison, AGatewayThatRunsTheDesignAgreesOnEveryRequest)
{
    const Policy p = policy();
    const ProbePlan pl = plan(p, "v1", "poisson:40/s,clients=3", 5 * kMicrosPerSecond);
    const auto samples
        = answers(pl, limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}});
    const ProbeReport r = compare(p, pl, samples);
    ASSERT_GT(r.responses, 100);
    EXPECT_EQ(r.agreed, r.responses);
    EXPECT_DOUBLE_EQ(r.agreement, 1.0);
    EXPECT_FALSE(r.firstDivergence);
    EXPECT_TRUE(withinTolerance(r, 0.0));
    // The trace is not trivial: the gateway denied a good share.
    EXPECT_GT(r.responses - r.observedAllowed, r.responses / 4);
}

TEST(ProbeComparison, ADecisionWithinTheFlightAgreesAndOneOutsideDoesNot)
{
    const Policy p = policy();
    // Random arrival times: some land within 5 ms before a moment the quota returns.
    const ProbePlan pl = plan(p, "v1", "poisson:40/s", 10 * kMicrosPerSecond);
    // The gateway decides 0 or 20 ms after the send, and the answer takes 25 ms: inside the
    // flight.
    auto late = answers(
        pl, limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}}, 0, 20000);
    for (ProbeSample &x : late)
        x.elapsed = 25000;
    const ProbeReport inFlight = compare(p, pl, late);
    EXPECT_EQ(inFlight.agreed, inFlight.responses);
    EXPECT_GT(inFlight.withinTiming, 0);
    // Reported as answered after 1 ms, a decision taken 20 ms after the send is out of reach.
    for (ProbeSample &x : late)
        x.elapsed = 1000;
    const ProbeReport outside = compare(p, pl, late);
    EXPECT_GT(outside.unexplained, 0);
}

// NGINX reads its clock once per pass of its event loop: a worker that lost the CPU decides the
// next request on a clock from before it was sent. Seen under load: one such decision at the
// edge of the burst made every later one disagree (design and gateway one request out of step,
// 21% unexplained while both admitted the same number). It must cost one divergence.
TEST(ProbeComparison, OneDecisionOnALaggingClockCountsOnce)
{
    const Policy p = policy();
    const ProbePlan pl = plan(p, "v1", "steady:16/s", 5 * kMicrosPerSecond);
    const GatewayLimit gcra
        = limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}};
    const auto onTime = answersTimed(pl, gcra, [](qint64) { return Timing{200, 1000}; });
    // The first request that a clock 40 ms late denies although it is admitted on time.
    for (qint64 lagging = 1; lagging <= qint64(onTime.size()); ++lagging) {
        const auto samples = answersTimed(pl, gcra, [lagging](qint64 n) {
            return Timing{n == lagging ? 200 - 40'000 : 200, 1000};
        });
        if (samples[lagging - 1].status == onTime[lagging - 1].status)
            continue;
        const ProbeReport r = compare(p, pl, samples);
        EXPECT_EQ(r.unexplained, 1) << "lagging request " << lagging;
        ASSERT_TRUE(r.firstDivergence);
        EXPECT_EQ(r.firstDivergence->request, lagging);
        EXPECT_TRUE(withinTolerance(r, 0.02));
        return;
    }
    FAIL() << "no request is denied on a clock 40 ms late";
}

TEST(ProbeComparison, AGatewayThatIgnoresTheLimitDivergesUnexplained)
{
    const Policy p = policy();
    const ProbePlan pl = plan(p, settings("v1"));
    auto samples
        = answers(pl, limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}});
    for (ProbeSample &x : samples)
        x.status = 200;
    const ProbeReport r = compare(p, pl, samples);
    EXPECT_GT(r.unexplained, 10);
    EXPECT_FALSE(withinTolerance(r, 0.01));
    ASSERT_TRUE(r.firstDivergence);
    EXPECT_FALSE(r.firstDivergence->explained);
    EXPECT_TRUE(r.firstDivergence->observedAllowed);
    EXPECT_FALSE(r.firstDivergence->predictedAllowed);
    // 10/s with a burst of 5 at 20/s: 4 intervals of tolerance (400 ms) let the first 9 in
    // (request n at 50(n-1) ms needs 100(n-1) - 400 <= 50(n-1)); the tenth is denied.
    EXPECT_EQ(r.firstDivergence->request, 10);
    EXPECT_TRUE(r.firstDivergence->explanation.contains(QLatin1String("admitted a request")));
}

TEST(ProbeComparison, NginxApproximationOfAWindowIsExplainedNotExcused)
{
    const Policy p = policy();
    ProbeSettings s = settings("window");
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:12/s"));
    s.duration = 4 * kMicrosPerSecond;
    const ProbePlan pl = plan(p, s);
    const auto designed = *toAlgorithmConfig(p.routes[2].limit());
    const auto nginx = exporterById(QStringLiteral("nginx"))->enforcedLimit(designed);
    ASSERT_TRUE(nginx);
    const auto samples = answers(pl, nginx->config);
    const ProbeReport r = compare(p, pl, samples, nginx);
    EXPECT_GT(r.explained, 0);
    EXPECT_EQ(r.unexplained, 0);
    ASSERT_TRUE(r.firstDivergence);
    EXPECT_TRUE(r.firstDivergence->explained);
    EXPECT_TRUE(r.firstDivergence->explanation.contains(QLatin1String("limit_req rate=5r/s")));
    // Without the model the same answers are unexplained.
    EXPECT_EQ(compare(p, pl, samples).unexplained, r.explained);
}

TEST(ProbeComparison, HeaderIssuesNameWhatIsWrong)
{
    const Policy p = policy();
    const ProbePlan pl = plan(p, settings("v1"));
    auto samples
        = answers(pl, limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}});
    int denials = 0;
    for (ProbeSample &x : samples) {
        if (x.status == 429 && denials++ > 0)
            x.headers.retryAfterS = 0; // honest would be 1 (whole seconds, rounded up)
        else if (x.status == 200)
            x.headers.remaining = 99;
    }
    const ProbeReport r = compare(p, pl, samples);
    std::map<QString, qint64> counts;
    for (const HeaderIssue &i : r.headerIssues)
        counts[i.kind] = i.count;
    EXPECT_EQ(counts[QStringLiteral("retry_after_missing")], 1);
    EXPECT_EQ(counts[QStringLiteral("retry_after_too_short")], denials - 1);
    EXPECT_EQ(counts[QStringLiteral("remaining_disagrees")], r.observedAllowed);
}

TEST(ProbeReport, JsonCarriesTheAgreedFields)
{
    const Policy p = policy();
    const ProbePlan pl = plan(p, settings("v1"));
    const ProbeReport r = compare(p, pl,
        answers(pl, limiter::AlgorithmConfig{limiter::GcraConfig{{10, kMicrosPerSecond}, 5}}));
    const QJsonObject j = toJson(r);
    for (const char *key : {"requests", "agreement", "explained_divergence",
             "unexplained_divergence", "first_divergence", "header_issues", "p50_ms", "p99_ms"})
        EXPECT_TRUE(j.contains(QLatin1String(key))) << key;
    EXPECT_EQ(j[QStringLiteral("requests")].toInteger(), 41);
    EXPECT_DOUBLE_EQ(j[QStringLiteral("agreement")].toDouble(), 1.0);
    const QByteArray csv = toCsv(r);
    EXPECT_EQ(csv.count('\n'), 42); // a header and one row per request
}

TEST(NginxEnforcedLimit, IsTheGcraLimitReqRuns)
{
    const Exporter *nginx = exporterById(QStringLiteral("nginx"));
    auto enforced = nginx->enforcedLimit(limiter::TokenBucketConfig{10, {5, kMicrosPerSecond}});
    ASSERT_TRUE(enforced);
    const auto *gcra
        = std::get_if<limiter::GcraConfig>(&std::get<limiter::AlgorithmConfig>(enforced->config));
    ASSERT_TRUE(gcra);
    EXPECT_EQ(gcra->burst, 10);
    EXPECT_EQ(gcra->rate.count, 5);
    EXPECT_EQ(gcra->rate.period, kMicrosPerSecond);
    EXPECT_TRUE(enforced->countsRequests);
    // 1000/h is 16.67/min: NGINX gets 16r/m, rounded down.
    enforced = nginx->enforcedLimit(limiter::FixedWindowConfig{1000, 3600 * kMicrosPerSecond});
    gcra = std::get_if<limiter::GcraConfig>(&std::get<limiter::AlgorithmConfig>(enforced->config));
    ASSERT_TRUE(gcra);
    EXPECT_EQ(gcra->rate.count, 16);
    EXPECT_EQ(gcra->rate.period, 60 * kMicrosPerSecond);
    EXPECT_EQ(gcra->burst, 1000);
    enforced = nginx->enforcedLimit(
        limiter::LeakyBucketConfig{{20, kMicrosPerSecond}, 4, limiter::LeakMode::Shape});
    const auto *leaky = std::get_if<limiter::LeakyBucketConfig>(
        &std::get<limiter::AlgorithmConfig>(enforced->config));
    ASSERT_TRUE(leaky);
    EXPECT_EQ(leaky->queue, 4);
    EXPECT_EQ(leaky->mode, limiter::LeakMode::Shape);
    // Targets without a model say so.
    EXPECT_FALSE(exporterById(QStringLiteral("kong"))
                     ->enforcedLimit(limiter::GcraConfig{{1, kMicrosPerSecond}, 1}));
}

TEST(HaproxyRateModel, CountsDenialsAndSlidesOverTwoPeriods)
{
    // http_req_rate(1s) gt 3, a table entry that expires after 1 s of silence.
    const GatewayLimit limit = HaproxyRateLimit{3, kMicrosPerSecond, kMicrosPerSecond};
    GatewayState s = freshState(limit);
    const limiter::Micros t0 = 1'700'000'000'000LL * 1000; // an even millisecond
    auto at = [&](limiter::Micros ms) { return decide(limit, s, t0 + ms * 1000, 1).allowed; };
    EXPECT_TRUE(at(0));
    EXPECT_TRUE(at(100));
    EXPECT_TRUE(at(200));
    EXPECT_FALSE(at(300)); // the fourth in the period: 4 > 3
    // Next period: 4 * (1000 - 0) / 1000 + 1 = 5 > 3.
    EXPECT_FALSE(at(1000));
    // 4 * 500 / 1000 + 2 = 4 > 3: the denials keep counting.
    EXPECT_FALSE(at(1500));
    // 4 * 100 / 1000 + 3 = 3 (rounded down): admitted.
    EXPECT_TRUE(at(1900));
    // A second of silence drops the entry: a fresh start.
    EXPECT_TRUE(at(2900));
    EXPECT_TRUE(at(2901));
}

TEST(HaproxyEnforcedLimit, IsTheRateTheExportWrites)
{
    const Exporter *haproxy = exporterById(QStringLiteral("haproxy"));
    const auto enforced
        = haproxy->enforcedLimit(limiter::SlidingWindowCounterConfig{8, kMicrosPerSecond});
    ASSERT_TRUE(enforced);
    const auto *rate = std::get_if<HaproxyRateLimit>(&enforced->config);
    ASSERT_TRUE(rate);
    EXPECT_EQ(rate->limit, 8);
    EXPECT_EQ(rate->period, kMicrosPerSecond);
    EXPECT_EQ(rate->expire, kMicrosPerSecond);
    // GCRA 50/s with bursts of 25: 25 per 500 ms, which the table must measure over 500 ms
    // (it measured over 1 s before, twice as strict as the warning said).
    const auto gcra = haproxy->enforcedLimit(limiter::GcraConfig{{50, kMicrosPerSecond}, 25});
    rate = std::get_if<HaproxyRateLimit>(&gcra->config);
    ASSERT_TRUE(rate);
    EXPECT_EQ(rate->limit, 25);
    EXPECT_EQ(rate->period, 500'000);
    const ExportResult result = haproxy->exportPolicy(readPolicy(R"(quota_studio: 1
name: g
routes:
  - id: api
    match: { path: /api }
    limit: { algorithm: gcra, rate: 50/s, burst: 25 }
)",
        QStringLiteral("g.yaml"))
                                                          .policy);
    ASSERT_FALSE(result.files.empty());
    EXPECT_TRUE(result.files.front().content.contains("store http_req_rate(500ms)"));
    EXPECT_TRUE(result.files.front().content.contains("gt 25 }"));
}

TEST(ProbeComparison, APairServedInTheOtherOrderAgreesOnlyWhileBothWereInFlight)
{
    const Policy p = policy();
    ProbeSettings s = settings("login"); // gcra 1/s, burst 1: one at a time
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:1/s"));
    const ProbePlan pl = plan(p, s);
    const limiter::Micros t0 = 1'700'000'000LL * kMicrosPerSecond;
    // Two requests 5 ms apart; the gateway decided the second first: it admitted the second and
    // denied the first.
    auto pair = [&](limiter::Micros elapsed) {
        ProbeSample a, b;
        a.number = 1;
        a.sentAt = t0;
        a.status = 429;
        b.number = 2;
        b.offset = 5000;
        b.sentAt = t0 + 5000;
        b.status = 200;
        a.elapsed = b.elapsed = elapsed;
        return compare(p, pl, {a, b});
    };
    const ProbeReport overlapping = pair(5000);
    EXPECT_EQ(overlapping.agreed, 2) << toText(overlapping).toStdString();
    EXPECT_EQ(overlapping.reordered, 2);
    EXPECT_FALSE(overlapping.firstDivergence);
    // Answered within 0.2 ms (+ 1 ms of clock grain), the first was decided before the second
    // left: no excuse.
    const ProbeReport apart = pair(200);
    EXPECT_EQ(apart.unexplained, 2);
    ASSERT_TRUE(apart.firstDivergence);
    EXPECT_EQ(apart.firstDivergence->request, 1);
}

// A gateway that runs the design exactly but decides each request at a random moment of its
// flight agrees on every request, for every algorithm: the possible histories keep the
// always-earliest and always-latest chains however long the trace.
TEST(ProbeComparison, RandomDecisionMomentsWithinTheFlightAgreeForEveryAlgorithm)
{
    const char *limits[] = {
        "{ algorithm: token_bucket, capacity: 5, refill: 10/s }",
        "{ algorithm: leaky_bucket, rate: 10/s, queue: 4 }",
        "{ algorithm: fixed_window, limit: 8, window: 1s }",
        "{ algorithm: sliding_window_log, limit: 8, window: 1s }",
        "{ algorithm: sliding_window_counter, limit: 8, window: 1s }",
        "{ algorithm: gcra, rate: 10/s, burst: 5 }",
    };
    for (const char *limit : limits) {
        SCOPED_TRACE(limit);
        const OneRoute route = oneRoute(limit);
        std::mt19937_64 dice(7);
        std::uniform_int_distribution<limiter::Micros> moment(0, 4000);
        const auto samples = answersTimed(route.plan, route.limit, [&](qint64) {
            return Timing{moment(dice), 4000};
        });
        const ProbeReport r = compare(route.policy, route.plan, samples);
        EXPECT_EQ(r.agreed, r.responses) << toText(r).toStdString();
        EXPECT_GT(r.responses - r.observedAllowed, r.responses / 4);
    }
}

// A slow first answer and quick ones after it, as NGINX gave under load: the key's first
// decision somewhere inside a long flight fixes the phase of every later one, and later requests
// with short flights can each rule out one end of that flight. Only a history from inside it
// fits them all.
TEST(ProbeComparison, AFirstDecisionInsideALongFlightIsFollowed)
{
    const char *limits[] = {
        "{ algorithm: token_bucket, capacity: 5, refill: 10/s }",
        "{ algorithm: leaky_bucket, rate: 10/s, queue: 4 }",
        "{ algorithm: gcra, rate: 10/s, burst: 5 }",
    };
    for (const char *limit : limits) {
        const OneRoute route = oneRoute(limit);
        for (const limiter::Micros firstAt : {2000, 3500, 5000}) {
            SCOPED_TRACE(std::string(limit) + ", first decided at +" + std::to_string(firstAt));
            std::mt19937_64 dice(11);
            std::uniform_int_distribution<limiter::Micros> moment(0, 800);
            const auto samples = answersTimed(route.plan, route.limit, [&](qint64 n) {
                return n == 1 ? Timing{firstAt, 8000} : Timing{moment(dice), 1000};
            });
            const ProbeReport r = compare(route.policy, route.plan, samples);
            EXPECT_EQ(r.agreed, r.responses) << toText(r).toStdString();
        }
    }
}

TEST(ProbeComparison, TheLastOfThreeInFlightServedFirstAgrees)
{
    const Policy p = policy();
    ProbeSettings s = settings("login"); // gcra 1/s, burst 1: one at a time
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:1/s"));
    const ProbePlan pl = plan(p, s);
    const limiter::Micros t0 = 1'700'000'000LL * kMicrosPerSecond;
    // Three requests 1 ms apart, all in flight for 5 ms; the gateway decided the third first.
    std::vector<ProbeSample> samples;
    for (int i = 0; i < 3; ++i) {
        ProbeSample x;
        x.number = i + 1;
        x.offset = i * 1000;
        x.sentAt = t0 + x.offset;
        x.elapsed = 5000;
        x.status = i == 2 ? 200 : 429;
        samples.push_back(x);
    }
    const ProbeReport r = compare(p, pl, samples);
    EXPECT_EQ(r.agreed, 3) << toText(r).toStdString();
    EXPECT_EQ(r.reordered, 3);
    EXPECT_FALSE(r.firstDivergence);
}

namespace {

// A burst shared by every client (keyed by address: the probe sends from one) and a quota per
// API key.
const char *const kSeveral = R"(quota_studio: 1
name: several
defaults: { key: header:X-Api-Key }
routes:
  - id: search
    match: { path: /search }
    limits:
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 6, refill: 8/s }
      - { name: quota, algorithm: fixed_window, limit: 12, window: 10s }
)";

// How a gateway with two limits treats a request another limit denies.
enum class Charges { None, Every, OnlyBurst };

// The gateway's answers: the burst per address, the quota per client, decided at the send +
// 200 µs by limitset.h's rule (Charges::None), or charging every limit whatever the answer
// (Charges::Every, as envoyproxy/ratelimit does), or enforcing the burst only.
std::vector<ProbeSample> severalAnswers(const Policy &p, const ProbePlan &plan, Charges charges)
{
    const auto burst = *toAlgorithmConfig(p.routes[0].limits[0].spec);
    const auto quota = *toAlgorithmConfig(p.routes[0].limits[1].spec);
    limiter::AlgorithmState burstState = limiter::freshState(burst);
    std::map<std::uint32_t, limiter::AlgorithmState> quotas;
    std::vector<ProbeSample> out;
    for (const PlannedRequest &r : plan.requests) {
        auto [it, fresh] = quotas.try_emplace(r.client, limiter::freshState(quota));
        ProbeSample s;
        s.number = qint64(out.size()) + 1;
        s.client = r.client;
        s.offset = r.at;
        s.sentAt = 1'700'000'000LL * kMicrosPerSecond + r.at;
        s.elapsed = 400;
        const limiter::Micros at = s.sentAt + 200;
        bool allowed = false;
        if (charges == Charges::None) {
            const limiter::LimitRef refs[]
                = {{&burst, &burstState, 1, false}, {&quota, &it->second, 1, false}};
            limiter::Decision each[2];
            allowed = limiter::decideAll(refs, at, each).allowed;
        } else if (charges == Charges::Every) {
            const bool a = limiter::decide(burst, burstState, at, 1).allowed;
            const bool b = limiter::decide(quota, it->second, at, 1).allowed;
            allowed = a && b;
        } else {
            allowed = limiter::decide(burst, burstState, at, 1).allowed;
        }
        s.status = allowed ? 200 : 429;
        out.push_back(s);
    }
    return out;
}

Policy severalPolicy()
{
    const PolicyReadResult read = readPolicy(kSeveral, QStringLiteral("several.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return read.policy;
}

} // namespace

TEST(ProbeSeveralLimits, AGatewayThatFollowsTheRuleAgreesAndEachLimitsDenialsAreCounted)
{
    const Policy p = severalPolicy();
    const ProbePlan pl = plan(p, "search", "poisson:30/s,clients=3", 8 * kMicrosPerSecond);
    EXPECT_EQ(pl.identityHeaders, QStringList{QStringLiteral("X-Api-Key")});
    EXPECT_TRUE(pl.warnings.join(' ').contains(QLatin1String("limit 'burst'")))
        << "the address-keyed limit is one key for every probe client, and says so";
    const ProbeReport r = compare(p, pl, severalAnswers(p, pl, Charges::None));
    ASSERT_GT(r.responses, 150);
    EXPECT_EQ(r.agreed, r.responses) << toText(r).toStdString();
    ASSERT_EQ(r.limits.size(), 2u);
    EXPECT_EQ(r.limits[0].name, "burst");
    EXPECT_GT(r.limits[0].predictedDenials, 10) << "the burst denies some";
    EXPECT_GT(r.limits[1].predictedDenials, 10) << "and each client's quota runs out";
    EXPECT_EQ(r.limits[0].predictedDenials + r.limits[1].predictedDenials,
        r.responses - r.observedAllowed);
    const QJsonObject json = toJson(r);
    EXPECT_TRUE(json.value(QStringLiteral("limits")).toObject().contains(QStringLiteral("quota")));
    EXPECT_TRUE(toText(r).contains(QLatin1String("per limit")));
}

TEST(ProbeSeveralLimits, AGatewayWithoutOneLimitDivergesAboutThatLimit)
{
    const Policy p = severalPolicy();
    const ProbePlan pl = plan(p, "search", "poisson:30/s,clients=3", 8 * kMicrosPerSecond);
    const ProbeReport r = compare(p, pl, severalAnswers(p, pl, Charges::OnlyBurst));
    EXPECT_GT(r.unexplained, 10);
    ASSERT_TRUE(r.firstUnexplained);
    EXPECT_EQ(r.firstUnexplained->limit, "quota");
    EXPECT_TRUE(r.firstUnexplained->observedAllowed);
    EXPECT_TRUE(r.firstUnexplained->explanation.contains(QLatin1String("limit 'quota'")))
        << r.firstUnexplained->explanation.toStdString();
    EXPECT_EQ(r.limits[0].divergences, 0);
    EXPECT_EQ(r.limits[1].divergences, r.unexplained);
}

// A gateway that charges every limit for a request another denies (envoyproxy/ratelimit,
// Traefik chains) drains the burst faster than the rule: it denies requests every limit admits.
TEST(ProbeSeveralLimits, AGatewayThatChargesDeniedRequestsIsCaught)
{
    const Policy p = severalPolicy();
    const ProbePlan pl = plan(p, "search", "poisson:30/s,clients=3", 8 * kMicrosPerSecond);
    const ProbeReport r = compare(p, pl, severalAnswers(p, pl, Charges::Every));
    EXPECT_GT(r.unexplained, 0) << toText(r).toStdString();
    EXPECT_GT(r.deniedThoughEveryLimitAdmits, 0);
    EXPECT_LT(r.observedAllowed, r.predictedAllowed + r.unexplained);
}
