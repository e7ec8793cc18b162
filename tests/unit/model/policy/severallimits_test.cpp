// Several limits per route in the policy format: `limits:` read with each item's own key, cost
// and mode, `limit:` read as one limit named `default`, mistakes reported where they are, and a
// save that keeps the file's text around the list's items.
#include "model/policy/policyreader.h"
#include "model/policy/policytextpatch.h"
#include "model/policy/policywriter.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

const QByteArray kSearch = R"(quota_studio: 1
name: several
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      # per client address, whatever the key
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 20, refill: 10/s }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d, cost: 2 }
      # a candidate, counted and reported only
      - { name: hourly-candidate, algorithm: sliding_window_counter, limit: 500, window: 1h, mode: shadow }
  - id: upload
    match: { path: /v1/upload }
    limit: { algorithm: leaky_bucket, rate: 5/s, queue: 10, mode: shape }
)";

const Diagnostic *find(const Diagnostics &all, const QString &path)
{
    for (const Diagnostic &d : all)
        if (d.path == path)
            return &d;
    return nullptr;
}

PolicyReadResult read(const QByteArray &text)
{
    return readPolicy(text, QStringLiteral("several.yaml"));
}

} // namespace

TEST(SeveralLimits, AListOfNamedLimitsEachWithItsOwnKeyCostAndMode)
{
    const PolicyReadResult r = read(kSearch);
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const Route &search = r.policy.routes[0];
    ASSERT_EQ(search.limits.size(), 3);
    EXPECT_TRUE(search.writtenAsList());
    EXPECT_EQ(search.limits[0].name, "burst");
    EXPECT_EQ(r.policy.keyOf(search, search.limits[0]).first().kind, KeySelector::Kind::Ip);
    EXPECT_EQ(r.policy.keyOf(search, search.limits[1]).first().name, "X-Api-Key");
    EXPECT_EQ(search.costOf(search.limits[0]), 1);
    EXPECT_EQ(search.costOf(search.limits[1]), 2);
    EXPECT_EQ(search.modeOf(search.limits[1]), RouteMode::Enforce);
    EXPECT_EQ(search.modeOf(search.limits[2]), RouteMode::Shadow);
    EXPECT_EQ(search.limits[2].spec.algorithm, limiter::Algorithm::SlidingWindowCounter);
    EXPECT_EQ(search.limitPath(2), "limits[2]");

    // `limit:` is a list of one, named `default`; a leaky bucket's mode is its own.
    const Route &upload = r.policy.routes[1];
    ASSERT_EQ(upload.limits.size(), 1);
    EXPECT_EQ(upload.limits[0].name, RouteLimit::defaultName());
    EXPECT_FALSE(upload.writtenAsList());
    EXPECT_EQ(upload.limit().mode, limiter::LeakMode::Shape);
    EXPECT_EQ(upload.limitPath(0), "limit");
}

TEST(SeveralLimits, ALeakyBucketItemTellsItsShapeFromShadowByTheValue)
{
    const PolicyReadResult r = read(R"(quota_studio: 1
name: t
routes:
  - id: a
    match: { path: /a }
    limits:
      - { name: shaped, algorithm: leaky_bucket, rate: 5/s, queue: 10, mode: shape }
      - { name: watched, algorithm: leaky_bucket, rate: 1/s, queue: 1, mode: shadow }
)");
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const Route &a = r.policy.routes[0];
    EXPECT_EQ(a.limits[0].spec.mode, limiter::LeakMode::Shape);
    EXPECT_FALSE(a.limits[0].mode);
    EXPECT_FALSE(a.limits[1].spec.mode);
    EXPECT_EQ(a.limits[1].mode, RouteMode::Shadow);
}

TEST(SeveralLimits, MistakesAreReportedAtTheirLineAndColumn)
{
    const PolicyReadResult r = read(R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 5, refill: 1/min }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d }
      - { name: burst, algorithm: gcra, rate: 1/s, burst: 2, cost: 3 }
      - { name: -x, algorithm: gcra, rate: 1/s, burst: 2 }
      - { algorithm: gcra, rate: 1/s, burst: 2 }
      - { name: loud, algorithm: gcra, rate: 1/s, burst: 2, mode: loud }
  - id: both
    match: { path: /b }
    limit: { algorithm: gcra, rate: 1/s, burst: 2 }
    limits: [{ name: x, algorithm: gcra, rate: 1/s, burst: 2 }]
)");
    const auto expect = [&](const char *path, int line, int column, const char *says,
                            Diagnostic::Severity severity = Diagnostic::Severity::Error) {
        const Diagnostic *d = find(r.diagnostics, QString::fromLatin1(path));
        ASSERT_TRUE(d) << path << " in\n" << dump(r.diagnostics);
        EXPECT_EQ(d->severity, severity) << path;
        EXPECT_EQ(d->line, line) << path;
        EXPECT_EQ(d->column, column) << path;
        EXPECT_TRUE(d->message.contains(QString::fromLatin1(says))) << d->message.toStdString();
    };
    expect("routes[0].limits[1].limit", 8, 56,
        "limit 'daily' (10000 per 1d) can never deny: limit 'burst' admits at most 1445",
        Diagnostic::Severity::Warning);
    expect("routes[0].limits[2].name", 9, 17, "two limits named 'burst' (the other at line 7)");
    expect(
        "routes[0].limits[2].cost", 9, 68, "cost 3 is more than limit 'burst' can ever admit (2)");
    expect("routes[0].limits[3].name", 10, 17, "limit name '-x' must be 1-32 letters");
    expect("routes[0].limits[4].name", 11, 9, "missing `name`");
    expect("routes[0].limits[5].mode", 12, 67, "'loud' is not one of enforce, shadow");
    expect("routes[1].limits", 16, 13, "`limit:` or `limits:`, not both");
}

TEST(SeveralLimits, AQuotaThatAnotherLimitReachesBindsAndIsNotWarnedAbout)
{
    // 10/s admits 864 020 a day: the daily quota of 10 000 does bind. And a quota on another
    // key than the burst's can bind whatever the burst allows one client.
    const PolicyReadResult r = read(kSearch);
    for (const Diagnostic &d : r.diagnostics)
        EXPECT_FALSE(d.message.contains(QStringLiteral("can never deny"))) << dump(r.diagnostics);
}

TEST(SeveralLimits, TheWriterKeepsEachFormAndAListSurvivesARoundTrip)
{
    const PolicyReadResult r = read(kSearch);
    const QByteArray yaml = writePolicy(r.policy, PolicyFormat::Yaml);
    EXPECT_TRUE(yaml.contains("limits:")) << yaml.toStdString();
    EXPECT_TRUE(yaml.contains("limit: {algorithm: leaky_bucket")) << yaml.toStdString();
    for (PolicyFormat format : {PolicyFormat::Yaml, PolicyFormat::Json}) {
        const PolicyReadResult again = read(writePolicy(r.policy, format));
        ASSERT_FALSE(hasErrors(again.diagnostics)) << dump(again.diagnostics);
        EXPECT_EQ(again.policy, r.policy) << writePolicy(r.policy, format).toStdString();
    }
}

TEST(SeveralLimits, ASavedEditInsideTheListKeepsItsCommentsAndOtherItems)
{
    const PolicyReadResult r = read(kSearch);
    Policy edited = r.policy;
    edited.routes[0].limits[1].spec.limit = 20000;
    const TextPatch patch = patchPolicyText(kSearch, r.policy, edited, PolicyFormat::Yaml);
    EXPECT_TRUE(patch.fallback.isEmpty()) << patch.fallback.toStdString();
    QByteArray expected = kSearch;
    expected.replace("limit: 10000", "limit: 20000");
    EXPECT_EQ(patch.text.toStdString(), expected.toStdString());
}

TEST(SeveralLimits, AddingRemovingAndReorderingLimitsMovesWholeItemsWithTheirComments)
{
    const PolicyReadResult r = read(kSearch);
    Policy edited = r.policy;
    QList<RouteLimit> &limits = edited.routes[0].limits;
    limits.swapItemsAt(0, 2); // candidate first, burst last
    limits.removeAt(1); // daily goes
    RouteLimit weekly = r.policy.routes[0].limits[1];
    weekly.name = QStringLiteral("weekly");
    weekly.cost.reset();
    weekly.spec.window = DurationValue{QStringLiteral("7d"), 7 * limiter::kMicrosPerDay};
    weekly.spec.fieldOrder.removeAll(QStringLiteral("cost"));
    limits.append(weekly);
    const TextPatch patch = patchPolicyText(kSearch, r.policy, edited, PolicyFormat::Yaml);
    EXPECT_TRUE(patch.fallback.isEmpty()) << patch.fallback.toStdString();
    const QByteArray expected = R"(quota_studio: 1
name: several
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      # a candidate, counted and reported only
      - { name: hourly-candidate, algorithm: sliding_window_counter, limit: 500, window: 1h, mode: shadow }
      # per client address, whatever the key
      - { name: burst, key: ip, algorithm: token_bucket, capacity: 20, refill: 10/s }
      - { name: weekly, algorithm: fixed_window, limit: 10000, window: 7d }
  - id: upload
    match: { path: /v1/upload }
    limit: { algorithm: leaky_bucket, rate: 5/s, queue: 10, mode: shape }
)";
    EXPECT_EQ(patch.text.toStdString(), expected.toStdString());
}

TEST(SeveralLimits, ASecondLimitTurnsLimitIntoLimitsInPlace)
{
    const PolicyReadResult r = read(kSearch);
    Policy edited = r.policy;
    Route &upload = edited.routes[1];
    upload.limits.first().name = QStringLiteral("shaping");
    RouteLimit daily;
    daily.name = QStringLiteral("daily");
    daily.spec.algorithm = limiter::Algorithm::FixedWindow;
    daily.spec.limit = 1000;
    daily.spec.window = DurationValue{QStringLiteral("1d"), limiter::kMicrosPerDay};
    upload.limits.append(daily);
    const TextPatch patch = patchPolicyText(kSearch, r.policy, edited, PolicyFormat::Yaml);
    EXPECT_TRUE(patch.fallback.isEmpty()) << patch.fallback.toStdString();
    EXPECT_TRUE(patch.text.endsWith(R"(  - id: upload
    match: { path: /v1/upload }
    limits:
      - { name: shaping, algorithm: leaky_bucket, rate: 5/s, queue: 10, mode: shape }
      - { name: daily, algorithm: fixed_window, limit: 1000, window: 1d }
)")) << patch.text.toStdString();
    // What the editor holds, as any save of it reads back.
    EXPECT_EQ(read(patch.text).policy, read(writePolicy(edited, PolicyFormat::Yaml)).policy);
}

TEST(SeveralLimits, ALayoutOfAnotherSystemReadsOneLimit)
{
    const PolicyReadResult r = read(R"(quota_studio: 1
name: t
redis:
  layouts:
    - { route: search, preset: tutorial-hash, key: "rl:{key}" }
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 20, refill: 10/s }
      - { name: daily, algorithm: fixed_window, limit: 10000, window: 1d }
)");
    const Diagnostic *d = find(r.diagnostics, QStringLiteral("redis.layouts[0].route"));
    ASSERT_TRUE(d) << dump(r.diagnostics);
    EXPECT_EQ(d->severity, Diagnostic::Severity::Error);
    EXPECT_EQ(d->line, 5);
    EXPECT_TRUE(d->message.contains(QStringLiteral("has 2 limits"))) << d->message.toStdString();
}

// The same in JSON: a second limit turns `"limit"` into `"limits"`, and the file reads back as
// edited (in place, or written whole when the patcher cannot say it in place: never wrong).
TEST(SeveralLimits, ASecondLimitInJsonReadsBackAsEdited)
{
    const PolicyReadResult r = read(kSearch);
    const QByteArray json = writePolicy(r.policy, PolicyFormat::Json);
    const PolicyReadResult fromJson = readPolicy(json, QStringLiteral("several.json"));
    ASSERT_FALSE(hasErrors(fromJson.diagnostics)) << dump(fromJson.diagnostics);
    Policy edited = fromJson.policy;
    RouteLimit daily;
    daily.name = QStringLiteral("daily");
    daily.spec.algorithm = limiter::Algorithm::FixedWindow;
    daily.spec.limit = 1000;
    daily.spec.window = DurationValue{QStringLiteral("1d"), limiter::kMicrosPerDay};
    edited.routes[1].limits.append(daily);
    const TextPatch patch = patchPolicyText(json, fromJson.policy, edited, PolicyFormat::Json);
    const PolicyReadResult again = readPolicy(patch.text, QStringLiteral("several.json"));
    ASSERT_FALSE(hasErrors(again.diagnostics)) << patch.text.toStdString();
    EXPECT_EQ(again.policy.routes[1].limits.size(), 2);
    EXPECT_TRUE(patch.text.contains("\"limits\"")) << patch.text.toStdString();
    EXPECT_FALSE(patch.text.contains("\"limit\": {")) << patch.text.toStdString();
    EXPECT_EQ(again.policy,
        readPolicy(writePolicy(edited, PolicyFormat::Json), QStringLiteral("w.json")).policy);
}
