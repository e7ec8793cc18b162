// The probe on a route whose numbers differ by plan: each client on a plan drawn from the
// traffic's `plans=`, its requests saying the plan as the policy finds it (a header with the
// plan's name, or a map's value), and every decision predicted on that plan's numbers and keys.
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/probe/probereport.h"
#include "tests/support/planfiles.h"

#include <QJsonObject>

#include <gtest/gtest.h>

#include <map>

using namespace qs;
using limiter::kMicrosPerSecond;

namespace {

// free: 2 at once, 1/s; pro: 6 at once, 4/s; enterprise: unlimited. The plan in X-Plan.
const char *const kByHeader = R"(quota_studio: 1
name: plans
plans: { names: [free, pro, enterprise], from: header:X-Plan, default: free }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit:
      algorithm: token_bucket
      capacity: 2
      refill: 1/s
      plans: { pro: { capacity: 6, refill: 4/s }, enterprise: unlimited }
)";

Policy policyOf(const char *yaml)
{
    const PolicyReadResult read = readPolicy(yaml, QStringLiteral("plans.yaml"));
    EXPECT_FALSE(hasErrors(read.diagnostics));
    return read.policy;
}

ProbePlan planOf(const Policy &p, const char *traffic, limiter::Micros duration)
{
    ProbeSettings s;
    s.routeId = QStringLiteral("search");
    s.url = QUrl(QStringLiteral("http://127.0.0.1:8080"));
    s.traffic = *parseTrafficSpec(QString::fromLatin1(traffic));
    s.duration = duration;
    auto made = makeProbePlan(p, s);
    EXPECT_TRUE(made.hasValue()) << made.error().toStdString();
    return made.hasValue() ? *made : ProbePlan{};
}

// A gateway that finds each request's plan as the policy does (requestPlan on the headers the
// probe sends) and decides it on `numbersOf(plan)`, per API key; nullopt: unlimited.
std::vector<ProbeSample> gatewayAnswers(const Policy &p, const ProbePlan &plan,
    const std::function<std::optional<LimitSpec>(const QString &)> &numbersOf)
{
    std::map<QString, limiter::AlgorithmState> states;
    std::vector<ProbeSample> out;
    for (const PlannedRequest &r : plan.requests) {
        RequestFacts facts;
        facts.headers = plan.headersFor(r);
        facts.target = plan.urlFor(r).path();
        const QString planName = p.plans.names.value(requestPlan(p, facts));
        ProbeSample s;
        s.number = qint64(out.size()) + 1;
        s.client = r.client;
        s.offset = r.at;
        s.sentAt = 1'700'000'000LL * kMicrosPerSecond + r.at;
        s.elapsed = 400;
        bool allowed = true;
        if (const auto spec = numbersOf(planName)) {
            const auto config = *toAlgorithmConfig(*spec);
            const QString key = planName + QLatin1Char(':')
                + plan.valueOf(
                    r.client, KeySelector{KeySelector::Kind::Header, QStringLiteral("X-Api-Key")});
            auto [it, fresh] = states.try_emplace(key, limiter::freshState(config));
            allowed = limiter::decide(config, it->second, s.sentAt + 200, 1).allowed;
        }
        s.status = allowed ? 200 : 429;
        out.push_back(s);
    }
    return out;
}

ProbeReport compare(const Policy &p, const ProbePlan &plan, const std::vector<ProbeSample> &samples)
{
    ProbeComparator c(p, plan, std::nullopt);
    for (const ProbeSample &s : samples)
        c.add(s);
    return summarize(c, plan, QStringLiteral("plans"), {});
}

const ProbePlanFigures &figuresOf(const ProbeReport &r, const char *plan)
{
    for (const ProbePlanFigures &f : r.plans)
        if (f.name == QLatin1String(plan))
            return f;
    static const ProbePlanFigures none;
    ADD_FAILURE() << "no figures for plan " << plan;
    return none;
}

} // namespace

TEST(ProbePlans, EachClientSaysItsPlanAndIsPredictedOnItsNumbers)
{
    const Policy p = policyOf(kByHeader);
    const ProbePlan pl
        = planOf(p, "poisson:40/s,clients=6,plans=free:1/pro:1/enterprise:1", 6 * kMicrosPerSecond);
    // Every request carries its client's plan in X-Plan, and its own identity in X-Api-Key.
    std::map<QString, int> planned;
    for (const PlannedRequest &r : pl.requests) {
        const auto headers = pl.headersFor(r);
        ASSERT_EQ(headers.size(), 2);
        EXPECT_EQ(headers[0].first, QStringLiteral("X-Api-Key"));
        EXPECT_EQ(
            headers[1], (QPair<QString, QString>{QStringLiteral("X-Plan"), pl.planOf(r.client)}));
        ++planned[pl.planOf(r.client)];
    }
    EXPECT_EQ(planned.size(), 3u) << "six clients drawn over three plans";

    const ProbeReport r = compare(p, pl, gatewayAnswers(p, pl, [&](const QString &plan) {
        return specForPlan(p.routes[0].limits[0], plan);
    }));
    ASSERT_GT(r.responses, 180);
    EXPECT_EQ(r.agreed, r.responses) << toText(r).toStdString();
    ASSERT_EQ(r.plans.size(), 3u);
    const ProbePlanFigures &free = figuresOf(r, "free"), &pro = figuresOf(r, "pro"),
                           &enterprise = figuresOf(r, "enterprise");
    EXPECT_EQ(free.responses + pro.responses + enterprise.responses, r.responses);
    EXPECT_LT(free.observedAllowed, free.responses) << "free's 1/s denies at this rate";
    EXPECT_EQ(enterprise.observedAllowed, enterprise.responses) << "unlimited";
    EXPECT_EQ(enterprise.predictedAllowed, enterprise.responses);
    // The per-limit figures name the plan whose numbers denied.
    ASSERT_EQ(r.limits.size(), 2u) << "default@free and default@pro; enterprise has none";
    EXPECT_EQ(r.limits[0].name, QStringLiteral("default@free"));
    EXPECT_GT(r.limits[0].predictedDenials, 0);
    const QJsonObject json = toJson(r);
    EXPECT_EQ(json[QStringLiteral("plans")][QStringLiteral("pro")][QStringLiteral("agreement")]
                  .toDouble(),
        1.0);
    EXPECT_TRUE(toText(r).contains(QLatin1String("per plan")));
    EXPECT_TRUE(toCsv(r).contains(",enterprise\n"));
}

TEST(ProbePlans, AGatewayThatGivesEveryPlanTheFreeNumbersDivergesOnTheOthers)
{
    const Policy p = policyOf(kByHeader);
    const ProbePlan pl
        = planOf(p, "poisson:40/s,clients=4,plans=free:1/pro:1", 6 * kMicrosPerSecond);
    const ProbeReport r = compare(p, pl, gatewayAnswers(p, pl, [&](const QString &) {
        return std::optional<LimitSpec>(p.routes[0].limits[0].spec);
    }));
    EXPECT_EQ(figuresOf(r, "free").agreed, figuresOf(r, "free").responses)
        << toText(r).toStdString();
    EXPECT_GT(r.unexplained, 10);
    ASSERT_TRUE(r.firstUnexplained);
    EXPECT_FALSE(r.firstUnexplained->observedAllowed) << "denied what pro's numbers admit";
    EXPECT_LT(figuresOf(r, "pro").agreement, 0.9);
}

TEST(ProbePlans, AllClientsOnTheDefaultPlanUnlessTheTrafficSpreadsThem)
{
    const Policy p = policyOf(kByHeader);
    const ProbePlan pl = planOf(p, "steady:10/s,clients=4", kMicrosPerSecond);
    for (std::uint32_t c = 0; c < 4; ++c)
        EXPECT_EQ(pl.planOf(c), QStringLiteral("free"));
    EXPECT_TRUE(pl.warnings.join(' ').contains(QLatin1String("default plan 'free'")))
        << pl.warnings.join('\n').toStdString();

    ProbeSettings s;
    s.routeId = QStringLiteral("search");
    s.url = QUrl(QStringLiteral("http://127.0.0.1:8080"));
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:10/s,plans=gold:1"));
    const auto refused = makeProbePlan(p, s);
    ASSERT_FALSE(refused.hasValue());
    EXPECT_TRUE(refused.error().contains(QLatin1String("'gold' is not a plan")))
        << refused.error().toStdString();
}

// Plans from an API-key map: a client on a plan sends one of the map's keys for it (clients on
// the default plan keep fresh identities, which the map does not list); a plan without a key in
// the map cannot be probed.
TEST(ProbePlans, FromAMapAClientSendsAKeyOfItsPlan)
{
    QTemporaryDir dir;
    const auto read = test::readPolicyWithMap(dir, R"(quota_studio: 1
name: mapped
plans: { names: [free, pro, enterprise], from: { key: "header:X-Api-Key", map: plans.map } }
routes:
  - id: search
    match: { path: /search }
    key: header:X-Api-Key
    limit: { algorithm: token_bucket, capacity: 2, refill: 1/s, plans: { pro: { capacity: 6 } } }
)",
        "k-pro-1 pro\nk-pro-2 pro\nk-free-1 free\n");
    ASSERT_FALSE(hasErrors(read.diagnostics));
    const Policy &p = read.policy;
    const ProbePlan pl
        = planOf(p, "poisson:40/s,clients=6,plans=free:1/pro:1", 6 * kMicrosPerSecond);
    for (std::uint32_t c = 0; c < 6; ++c) {
        const QString key
            = pl.valueOf(c, KeySelector{KeySelector::Kind::Header, QStringLiteral("x-api-key")});
        if (pl.planOf(c) == QLatin1String("pro"))
            EXPECT_TRUE(key == QLatin1String("k-pro-1") || key == QLatin1String("k-pro-2"))
                << key.toStdString();
        else
            EXPECT_EQ(key, pl.identity(c));
    }
    EXPECT_TRUE(pl.warnings.join(' ').contains(QLatin1String("k-pro-1, k-pro-2")))
        << pl.warnings.join('\n').toStdString();
    const ProbeReport r = compare(p, pl, gatewayAnswers(p, pl, [&](const QString &plan) {
        return specForPlan(p.routes[0].limits[0], plan);
    }));
    EXPECT_EQ(r.agreed, r.responses) << toText(r).toStdString();
    EXPECT_GT(figuresOf(r, "pro").responses, 20);

    ProbeSettings s;
    s.routeId = QStringLiteral("search");
    s.url = QUrl(QStringLiteral("http://127.0.0.1:8080"));
    s.traffic = *parseTrafficSpec(QStringLiteral("steady:10/s,clients=8,plans=enterprise:1"));
    const auto refused = makeProbePlan(p, s);
    ASSERT_FALSE(refused.hasValue());
    EXPECT_TRUE(refused.error().contains(QLatin1String("is on plan 'enterprise'")))
        << refused.error().toStdString();
}
