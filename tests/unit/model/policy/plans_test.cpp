// Plans in the policy format: `plans:` (names, where a request's plan comes from, the default)
// and a limit's per-plan numbers; the map file that turns an API key into a plan; each mistake
// at its line and column with what to do.
#include "model/policy/limitconversion.h"
#include "model/policy/plans.h"
#include "model/policy/policyreader.h"
#include "model/policy/policytextpatch.h"
#include "model/policy/policywriter.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

// The issue's own example, with the map file beside it.
const QByteArray kPlans = R"(quota_studio: 1
name: saas
plans:
  names: [free, pro, enterprise]
  from: { key: "header:X-Api-Key", map: plans.map }
  default: free
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - name: burst
        algorithm: token_bucket
        capacity: 10                   # every plan, unless the plan says otherwise
        refill: 1/s
        plans: { pro: { capacity: 100, refill: 10/s }, enterprise: unlimited }
      - name: monthly
        algorithm: fixed_window
        limit: 1000
        calendar: month
        time_zone: Europe/Berlin
        plans: { pro: { limit: 100000 }, enterprise: unlimited }
)";

const QByteArray kMap = "# API key -> plan\n"
                        "k-free-1 free\n"
                        "\n"
                        "k-pro-1   pro\n"
                        "k-ent-1\tenterprise   \r\n";

struct Folder {
    QTemporaryDir dir;
    QString write(const QString &name, const QByteArray &text)
    {
        QFile f(dir.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(text);
        return f.fileName();
    }
    PolicyReadResult read(const QByteArray &policy, const QByteArray &map = kMap)
    {
        if (!map.isNull())
            write(QStringLiteral("plans.map"), map);
        return readPolicyFile(write(QStringLiteral("policy.yaml"), policy));
    }
};

const Diagnostic *find(const Diagnostics &all, const QString &path,
    Diagnostic::Severity severity = Diagnostic::Severity::Error)
{
    for (const Diagnostic &d : all)
        if (d.path == path && d.severity == severity)
            return &d;
    return nullptr;
}

RequestFacts withHeader(const QString &name, const QString &value)
{
    return RequestFacts{
        QStringLiteral("203.0.113.7"), {{name, value}}, QStringLiteral("/v1/search")};
}

QByteArray headerPlans(const QByteArray &limitPlans,
    const QByteArray &plansSection = "plans: { names: [free, pro], from: header:X-Plan }\n")
{
    return "quota_studio: 1\nname: t\n" + plansSection
        + "routes:\n  - id: r\n    match: { path: /r }\n    limit: { algorithm: token_bucket, "
          "capacity: 10, refill: 1/s, plans: "
        + limitPlans + " }\n";
}

} // namespace

TEST(Plans, TheIssuesExampleIsReadWithItsMapAndEachPlanGetsItsNumbers)
{
    Folder folder;
    const PolicyReadResult r = folder.read(kPlans);
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const PlanSettings &plans = r.policy.plans;
    EXPECT_EQ(plans.names, (QStringList{"free", "pro", "enterprise"}));
    ASSERT_TRUE(plans.from);
    EXPECT_EQ(plans.from->toString(), QStringLiteral("header:X-Api-Key"));
    EXPECT_EQ(plans.mapFile, QStringLiteral("plans.map"));
    ASSERT_TRUE(plans.map);
    EXPECT_EQ(plans.map->entries.size(), 3);
    EXPECT_EQ(plans.map->entries[2].value, QStringLiteral("k-ent-1"));
    EXPECT_EQ(plans.map->entries[2].line, 5);

    const RouteLimit &burst = r.policy.routes[0].limits[0];
    const auto free = specForPlan(burst, QStringLiteral("free"));
    const auto pro = specForPlan(burst, QStringLiteral("pro"));
    ASSERT_TRUE(free && pro);
    EXPECT_EQ(free->capacity, 10);
    EXPECT_EQ(free->refill->text, QStringLiteral("1/s"));
    EXPECT_EQ(pro->capacity, 100);
    EXPECT_EQ(pro->refill->text, QStringLiteral("10/s"));
    EXPECT_FALSE(specForPlan(burst, QStringLiteral("enterprise")));

    // The calendar stays the limit's: a pro month starts where a free one does.
    const RouteLimit &monthly = r.policy.routes[0].limits[1];
    const auto proMonth = specForPlan(monthly, QStringLiteral("pro"));
    ASSERT_TRUE(proMonth);
    EXPECT_EQ(proMonth->limit, 100000);
    EXPECT_EQ(proMonth->calendar, limiter::CalendarUnit::Month);
    EXPECT_EQ(proMonth->timeZone, QStringLiteral("Europe/Berlin"));
    EXPECT_TRUE(toAlgorithmConfig(*proMonth));

    const auto planOf = [&](const QString &key) {
        const int i = requestPlan(r.policy, withHeader(QStringLiteral("x-api-key"), key));
        return r.policy.plans.names.value(i);
    };
    EXPECT_EQ(planOf(QStringLiteral("k-pro-1")), QStringLiteral("pro"));
    EXPECT_EQ(planOf(QStringLiteral("k-ent-1")), QStringLiteral("enterprise"));
    EXPECT_EQ(planOf(QStringLiteral("k-free-1")), QStringLiteral("free"));
    EXPECT_EQ(planOf(QStringLiteral("k-unknown")), QStringLiteral("free")) << "unknown: default";
    EXPECT_EQ(planOf(QStringLiteral("pro")), QStringLiteral("free"))
        << "a plan's name as the key is no plan: only the map says";
    EXPECT_EQ(
        r.policy.plans.names.value(requestPlan(r.policy, RequestFacts{})), QStringLiteral("free"))
        << "missing: default";
}

TEST(Plans, APlanNamedInAHeaderIsTakenAsItsNameAndAnythingElseIsTheDefault)
{
    const PolicyReadResult r
        = readPolicy(headerPlans("{ pro: { capacity: 100 } }",
                         "plans: { names: [free, pro], from: header:X-Plan, default: free }\n"),
            QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const auto plan = [&](const QString &value) {
        return requestPlan(r.policy, withHeader(QStringLiteral("X-Plan"), value));
    };
    EXPECT_EQ(plan(QStringLiteral("pro")), 1);
    EXPECT_EQ(plan(QStringLiteral("free")), 0);
    EXPECT_EQ(plan(QStringLiteral("PRO")), 0) << "plan names compare exactly";
    EXPECT_EQ(plan(QStringLiteral("gold")), 0);
    EXPECT_EQ(plan(QString()), 0);
}

TEST(Plans, WithoutADefaultTheFirstPlanIsTheDefault)
{
    const PolicyReadResult r
        = readPolicy(headerPlans("{ pro: { capacity: 100 } }",
                         "plans: { names: [free, pro], from: header:X-Plan }\n"),
            QStringLiteral("t.yaml"));
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    EXPECT_EQ(r.policy.plans.effectiveDefault(), QStringLiteral("free"));
}

TEST(Plans, SavingWritesWhatWasReadAndAnEditChangesOnlyItsNumber)
{
    Folder folder;
    const PolicyReadResult r = folder.read(kPlans);
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    for (PolicyFormat format : {PolicyFormat::Yaml, PolicyFormat::Json}) {
        const QByteArray saved = writePolicy(r.policy, format);
        const PolicyReadResult again = folder.read(saved);
        ASSERT_FALSE(hasErrors(again.diagnostics)) << dump(again.diagnostics) << saved.constData();
        EXPECT_EQ(again.policy, r.policy) << saved.constData();
    }
    Policy edited = r.policy;
    edited.routes[0].limits[0].plans[0].spec.capacity = 250;
    const TextPatch patch = patchPolicyText(kPlans, r.policy, edited, PolicyFormat::Yaml);
    ASSERT_TRUE(patch.fallback.isEmpty()) << patch.fallback.toStdString();
    QByteArray expected = kPlans;
    expected.replace(
        "pro: { capacity: 100, refill: 10/s }", "pro: { capacity: 250, refill: 10/s }");
    EXPECT_EQ(patch.text, expected);

    Policy unlimitedPro = r.policy;
    unlimitedPro.routes[0].limits[1].plans[0] = PlanLimit{QStringLiteral("pro"), true, {}};
    const TextPatch second = patchPolicyText(kPlans, r.policy, unlimitedPro, PolicyFormat::Yaml);
    ASSERT_TRUE(second.fallback.isEmpty()) << second.fallback.toStdString();
    EXPECT_TRUE(second.text.contains("plans: { pro: unlimited, enterprise: unlimited }"))
        << second.text.constData();
    EXPECT_TRUE(second.text.contains("# every plan, unless the plan says otherwise"));
}

TEST(Plans, APlanTheLimitNamesButThePolicyDoesNotDeclareIsAnErrorAtItsName)
{
    const PolicyReadResult r = readPolicy(
        headerPlans("{ pro: { capacity: 100 }, gold: unlimited }"), QStringLiteral("t.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("routes[0].limit.plans.gold"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->line, 7);
    EXPECT_EQ(d->column, 105);
    EXPECT_EQ(d->message,
        QStringLiteral("'gold' is not a plan of this policy (plans.names: free, pro): use one of "
                       "them, or declare it"));
}

TEST(Plans, PerPlanNumbersWithoutAPlansSectionSayWhatToAdd)
{
    const PolicyReadResult r
        = readPolicy(headerPlans("{ pro: { capacity: 100 } }", ""), QStringLiteral("t.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("routes[0].limit.plans.pro"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_TRUE(d->message.contains(QStringLiteral("the policy declares no plans: add `plans:")))
        << d->message.toStdString();
}

TEST(Plans, MistakesInThePlansSectionAreReportedWhereTheyAre)
{
    struct Case {
        QByteArray section;
        QString path;
        QString says;
    };
    const Case cases[] = {
        {"plans: { names: [free, pro], from: header:X-Plan, default: gold }\n",
            QStringLiteral("plans.default"), QStringLiteral("the default plan 'gold' is not one")},
        {"plans: { names: [free, pro, free], from: header:X-Plan }\n",
            QStringLiteral("plans.names[2]"), QStringLiteral("plan 'free' is listed twice")},
        {"plans: { names: [free, \"p r o\"], from: header:X-Plan }\n",
            QStringLiteral("plans.names[1]"), QStringLiteral("plan name 'p r o' must be")},
        {"plans: { names: [free, pro], from: ip }\n", QStringLiteral("plans.from"),
            QStringLiteral("to find it from ip, map the value to a plan")},
        {"plans: { names: [free, pro] }\n", QStringLiteral("plans.from"),
            QStringLiteral("missing `from`")},
        {"plans: { names: [], from: header:X-Plan }\n", QStringLiteral("plans.names"),
            QStringLiteral("`names` lists the plans")},
        {"plans: { names: [free, pro], from: { key: header:X-Api-Key } }\n",
            QStringLiteral("plans.from.map"), QStringLiteral("missing `map`")},
        {"plans: { names: [free, pro], from: header:X-Plan, tiers: 3 }\n",
            QStringLiteral("plans.tiers"), QStringLiteral("unknown field `tiers` in plans")},
    };
    for (const Case &c : cases) {
        const PolicyReadResult r = readPolicy(
            headerPlans("{ pro: { capacity: 100 } }", c.section), QStringLiteral("t.yaml"));
        const Diagnostic *d = find(r.diagnostics, c.path);
        ASSERT_TRUE(d) << c.section.constData() << dump(r.diagnostics);
        EXPECT_TRUE(d->message.contains(c.says)) << d->message.toStdString();
        EXPECT_EQ(d->line, 3) << c.section.constData();
        EXPECT_GT(d->column, 1) << c.section.constData();
    }
}

TEST(Plans, MistakesInALimitsPlansAreReportedWhereTheyAre)
{
    struct Case {
        QByteArray plans;
        QString path;
        QString says;
    };
    const Case cases[] = {
        {"{ pro: { capacity: 0 } }", QStringLiteral("routes[0].limit.plans.pro.capacity"),
            QStringLiteral("capacity 0 is out of range")},
        {"{ pro: { calendar: month } }", QStringLiteral("routes[0].limit.plans.pro.calendar"),
            QStringLiteral("unknown field `calendar` in plan 'pro' of this limit (a plan sets "
                           "capacity, refill)")},
        {"{ pro: unlimted }", QStringLiteral("routes[0].limit.plans.pro"),
            QStringLiteral("or `unlimited`, not 'unlimted'")},
        {"[pro]", QStringLiteral("routes[0].limit.plans"),
            QStringLiteral("`plans` gives a plan its own numbers")},
        {"{ pro: { refill: fast } }", QStringLiteral("routes[0].limit.plans.pro.refill"),
            QStringLiteral("fast")},
    };
    for (const Case &c : cases) {
        const PolicyReadResult r = readPolicy(headerPlans(c.plans), QStringLiteral("t.yaml"));
        const Diagnostic *d = find(r.diagnostics, c.path);
        ASSERT_TRUE(d) << c.plans.constData() << "\n" << dump(r.diagnostics);
        EXPECT_TRUE(d->message.contains(c.says)) << d->message.toStdString();
        EXPECT_EQ(d->line, 7);
    }
}

TEST(Plans, AnEmptyPlanEntryAndAnUnlimitedDefaultAreWarnings)
{
    const PolicyReadResult r
        = readPolicy(headerPlans("{ pro: {}, free: unlimited }"), QStringLiteral("t.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const Diagnostic *empty = find(
        r.diagnostics, QStringLiteral("routes[0].limit.plans.pro"), Diagnostic::Severity::Warning);
    ASSERT_TRUE(empty) << dump(r.diagnostics);
    EXPECT_TRUE(empty->message.contains(QStringLiteral("gives the limit no numbers of its own")));
    const Diagnostic *open = find(
        r.diagnostics, QStringLiteral("routes[0].limit.plans.free"), Diagnostic::Severity::Warning);
    ASSERT_TRUE(open) << dump(r.diagnostics);
    EXPECT_TRUE(open->message.contains(QStringLiteral("a request with a missing or unknown plan "
                                                      "skips the limit")))
        << open->message.toStdString();
}

TEST(Plans, APlansNumbersMustMakeAValidLimitOnTheirOwn)
{
    // 10/s refill with the plan's capacity 0.5 is not the reader's business; a cost above what
    // the plan's bucket holds is: every request on that plan would be denied.
    const QByteArray text = "quota_studio: 1\nname: t\n"
                            "plans: { names: [free, pro], from: header:X-Plan }\n"
                            "routes:\n  - id: r\n    match: { path: /r }\n    cost: 20\n"
                            "    limit: { algorithm: token_bucket, capacity: 50, refill: 1/s, "
                            "plans: { free: { capacity: 10 } } }\n";
    const PolicyReadResult r = readPolicy(text, QStringLiteral("t.yaml"));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("routes[0].limit.plans.free"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->message,
        QStringLiteral("cost 20 is more than the limit admits on plan 'free' (10): every request "
                       "on that plan would be denied"));
}

TEST(Plans, AMapFileThatIsMissingIsAnErrorThatSaysWhereItWasLooked)
{
    Folder folder;
    const PolicyReadResult r = folder.read(kPlans, QByteArray());
    ASSERT_TRUE(hasErrors(r.diagnostics));
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("plans.from.map"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->file, folder.dir.filePath(QStringLiteral("plans.map")));
    EXPECT_TRUE(d->message.startsWith(QStringLiteral("cannot open the plan map: ")));
}

TEST(Plans, AMalformedMapFileIsReportedAtEachBadLine)
{
    const QByteArray map = "k-1 free\n"
                           "k-2\n" // one word
                           "k-3 gold\n" // no such plan
                           "k-1 pro\n" // twice
                           "k-4 pro extra\n" // three words
                           "k-\x01 pro\n"; // a control byte
    const PlanMapReadResult r = readPlanMapText(
        map, QStringLiteral("plans.map"), {QStringLiteral("free"), QStringLiteral("pro")});
    EXPECT_FALSE(r.map);
    ASSERT_EQ(r.diagnostics.size(), 5) << dump(r.diagnostics);
    const auto at
        = [&](int i) { return std::tuple(r.diagnostics[i].line, r.diagnostics[i].column); };
    EXPECT_EQ(at(0), std::tuple(2, 1));
    EXPECT_TRUE(r.diagnostics[0].message.contains(QStringLiteral("found 1 word")));
    EXPECT_EQ(at(1), std::tuple(3, 5));
    EXPECT_TRUE(r.diagnostics[1].message.startsWith(QStringLiteral("'gold' is not a plan")));
    EXPECT_EQ(at(2), std::tuple(4, 1));
    EXPECT_EQ(r.diagnostics[2].message,
        QStringLiteral(
            "'k-1' is mapped twice (first at line 1, to 'free'): keep one line per value"));
    EXPECT_EQ(at(3), std::tuple(5, 1));
    EXPECT_EQ(at(4), std::tuple(6, 3));
    EXPECT_TRUE(r.diagnostics[4].message.startsWith(QStringLiteral("byte 0x01 is not allowed")));
    EXPECT_EQ(r.diagnostics[0].file, QStringLiteral("plans.map"));
}

TEST(Plans, ABadMapFileMakesThePolicyFailToLint)
{
    Folder folder;
    const PolicyReadResult r = folder.read(kPlans, "k-1 platinum\n");
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("plans.from.map"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->line, 1);
    EXPECT_EQ(d->column, 5);
    EXPECT_FALSE(r.policy.plans.map);
}

TEST(Plans, APlanTableCellReadsWhatItShowsAndRefusesWhatAFileWould)
{
    Folder folder;
    const PolicyReadResult r = folder.read(kPlans);
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const RouteLimit &burst = r.policy.routes[0].limits[0];
    const PlanLimit &pro = *burst.planLimit(QStringLiteral("pro"));
    EXPECT_EQ(formatPlanCell(pro), QStringLiteral("capacity 100, refill 10/s"));
    const auto again = parsePlanCell(formatPlanCell(pro), burst, QStringLiteral("pro"));
    ASSERT_TRUE(again && *again) << again.error().toStdString();
    EXPECT_EQ(**again, pro);
    const auto unlimited
        = parsePlanCell(QStringLiteral(" unlimited "), burst, QStringLiteral("pro"));
    ASSERT_TRUE(unlimited && *unlimited);
    EXPECT_TRUE((*unlimited)->unlimited);
    EXPECT_EQ(formatPlanCell(**unlimited), QStringLiteral("unlimited"));
    const auto own = parsePlanCell(QString(), burst, QStringLiteral("pro"));
    ASSERT_TRUE(own);
    EXPECT_FALSE(*own) << "empty: the limit's own numbers";
    EXPECT_TRUE(
        parsePlanCell(QStringLiteral("capacity: 5, refill=2/s"), burst, QStringLiteral("pro")))
        << "`name: value` and `name=value` too";

    const auto refused = [&](const QString &text) {
        const auto parsed = parsePlanCell(text, burst, QStringLiteral("pro"));
        return parsed ? QString() : parsed.error();
    };
    EXPECT_EQ(refused(QStringLiteral("limit 5")),
        QStringLiteral("a plan of this token bucket sets capacity, refill, not `limit`"));
    EXPECT_EQ(refused(QStringLiteral("capacity 0")),
        QStringLiteral("capacity takes a whole number from 1 to 1000000000, not '0'"));
    EXPECT_EQ(refused(QStringLiteral("capacity 5, capacity 6")),
        QStringLiteral("`capacity` is given twice"));
    EXPECT_TRUE(refused(QStringLiteral("refill fast")).startsWith(QStringLiteral("refill: ")));
    EXPECT_TRUE(
        refused(QStringLiteral("capacity")).contains(QStringLiteral("is not `field value`")));
    const RouteLimit &monthly = r.policy.routes[0].limits[1];
    EXPECT_EQ(parsePlanCell(QStringLiteral("window 30d"), monthly, QStringLiteral("pro")).error(),
        QStringLiteral("a plan of this fixed window sets limit, not `window`"))
        << "a calendar limit's window is its calendar";
}
