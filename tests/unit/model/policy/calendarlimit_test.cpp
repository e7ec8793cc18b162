// Calendar windows in the policy format: `calendar:` and `time_zone:` on a fixed window, read,
// written back as they were, turned into windows that follow the zone's calendar, and every
// mistake reported at its line and column with what to do.
#include "model/policy/limitconversion.h"
#include "model/policy/policyreader.h"
#include "model/policy/policytextpatch.h"
#include "model/policy/policywriter.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

const QByteArray kMonthly = R"(quota_studio: 1
name: calendar
routes:
  - id: search
    match: { path: /v1/search }
    limits:
      - { name: burst, algorithm: token_bucket, capacity: 10, refill: 1/s }
      - name: monthly
        algorithm: fixed_window
        limit: 1000
        calendar: month                # resets on the 1st
        time_zone: Europe/Berlin
  - id: export
    match: { path: /v1/export }
    limit: { algorithm: fixed_window, limit: 5, calendar: week }
)";

const Diagnostic *find(const Diagnostics &all, const QString &path)
{
    for (const Diagnostic &d : all)
        if (d.path == path && d.severity == Diagnostic::Severity::Error)
            return &d;
    return nullptr;
}

PolicyReadResult read(const QByteArray &text)
{
    return readPolicy(text, QStringLiteral("calendar.yaml"));
}

QByteArray withLimit(const QByteArray &limit)
{
    return "quota_studio: 1\nname: t\nroutes:\n  - id: r\n    match: { path: /r }\n    limit: "
        + limit + "\n";
}

} // namespace

TEST(CalendarLimits, AMonthInAZoneAndAWeekInUtcAreReadAndBecomeCalendarWindows)
{
    const PolicyReadResult r = read(kMonthly);
    ASSERT_FALSE(hasErrors(r.diagnostics)) << dump(r.diagnostics);
    const LimitSpec &monthly = r.policy.routes[0].limits[1].spec;
    EXPECT_EQ(monthly.calendar, limiter::CalendarUnit::Month);
    EXPECT_EQ(monthly.timeZone, QStringLiteral("Europe/Berlin"));
    EXPECT_FALSE(monthly.window);
    EXPECT_EQ(describeLimit(monthly),
        QStringLiteral("fixed_window limit 1000, calendar month, time_zone Europe/Berlin"));

    const auto config = toAlgorithmConfig(monthly);
    ASSERT_TRUE(config) << config.error().message.toStdString();
    const auto &fixed = std::get<limiter::FixedWindowConfig>(*config);
    ASSERT_TRUE(fixed.calendar);
    // 2026-03-31 22:00 UTC is midnight of April 1st in Berlin (summer time, UTC+2).
    const limiter::Micros april = 1774994400 * limiter::kMicrosPerSecond;
    EXPECT_EQ(fixed.windowAt(april).start, april);
    EXPECT_EQ(fixed.windowAt(april - 1).end, april);
    EXPECT_EQ(fixed.windowAt(april).end - april, 30 * limiter::kMicrosPerDay);

    const auto weekly = toAlgorithmConfig(r.policy.routes[1].limit());
    ASSERT_TRUE(weekly);
    const auto &week = std::get<limiter::FixedWindowConfig>(*weekly);
    ASSERT_TRUE(week.calendar);
    ASSERT_TRUE(week.calendar->zoned());
    EXPECT_EQ(week.calendar->zoned()->zone().name(), "UTC");
    // 2026-12-07 was a Monday: its week starts at 00:00 UTC.
    const limiter::Micros monday = 1796601600 * limiter::kMicrosPerSecond;
    EXPECT_EQ(week.windowAt(monday + 3 * limiter::kMicrosPerDay).start, monday);
}

TEST(CalendarLimits, WrittenBackWithTheirFieldsInPlaceAndConvertedBothWays)
{
    const PolicyReadResult r = read(kMonthly);
    ASSERT_FALSE(hasErrors(r.diagnostics));
    const QByteArray written = writePolicy(r.policy, PolicyFormat::Yaml);
    const PolicyReadResult again = read(written);
    ASSERT_FALSE(hasErrors(again.diagnostics)) << written.toStdString();
    EXPECT_EQ(again.policy.routes, r.policy.routes);
    EXPECT_TRUE(written.contains("calendar: month")) << written.toStdString();
    EXPECT_TRUE(written.contains("time_zone: Europe/Berlin"));
    // An edit elsewhere keeps the limit's own text, comment included.
    Policy edited = r.policy;
    edited.routes[1].limits[0].spec.limit = 6;
    const TextPatch patch = patchPolicyText(kMonthly, r.policy, edited, PolicyFormat::Yaml);
    EXPECT_TRUE(patch.fallback.isEmpty()) << patch.fallback.toStdString();
    EXPECT_TRUE(patch.text.contains("calendar: month                # resets on the 1st"))
        << patch.text.toStdString();
    EXPECT_TRUE(patch.text.contains("limit: { algorithm: fixed_window, limit: 6, calendar: week }"))
        << patch.text.toStdString();
    // The config gives back the limit as written (UTC is the default and not written).
    const LimitSpec back = toLimitSpec(*toAlgorithmConfig(r.policy.routes[0].limits[1].spec));
    EXPECT_EQ(back.calendar, limiter::CalendarUnit::Month);
    EXPECT_EQ(back.timeZone, QStringLiteral("Europe/Berlin"));
    EXPECT_EQ(back.fieldOrder, QStringList({"algorithm", "limit", "calendar", "time_zone"}));
    EXPECT_FALSE(toLimitSpec(*toAlgorithmConfig(r.policy.routes[1].limit())).timeZone);
}

TEST(CalendarLimits, MistakesAreReportedAtTheirFieldWithWhatToDo)
{
    struct Case {
        QByteArray limit;
        QString path;
        QByteArray at; // the text the diagnostic points to: its first occurrence
        QString says;
    };
    const Case cases[] = {
        {"{ algorithm: fixed_window, limit: 5, calendar: month, window: 30d }",
            "routes[0].limit.window", "30d", "exclude each other"},
        {"{ algorithm: fixed_window, limit: 5, window: 1d, time_zone: UTC }",
            "routes[0].limit.time_zone", "UTC", "calendar windows only"},
        {"{ algorithm: fixed_window, limit: 5, calendar: month, time_zone: Europe/Berlinn }",
            "routes[0].limit.time_zone", "Europe/Berlinn", "no time zone 'Europe/Berlinn'"},
        {"{ algorithm: fixed_window, limit: 5, calendar: month, time_zone: ../../etc/passwd }",
            "routes[0].limit.time_zone", "../../etc/passwd", "not a time zone name"},
        {"{ algorithm: fixed_window, limit: 5, calendar: mnth }", "routes[0].limit.calendar",
            "mnth", "did you mean 'month'"},
        {"{ algorithm: sliding_window_counter, limit: 5, calendar: month }",
            "routes[0].limit.calendar", "month", "does not apply to sliding_window_counter"},
        {"{ algorithm: fixed_window, limit: 5 }", "routes[0].limit.window", "{",
            "missing `window`"},
    };
    for (const Case &c : cases) {
        const PolicyReadResult r = read(withLimit(c.limit));
        const Diagnostic *d = find(r.diagnostics, c.path);
        ASSERT_TRUE(d) << c.limit.toStdString() << "\n" << dump(r.diagnostics);
        EXPECT_EQ(d->line, 6) << c.limit.toStdString();
        EXPECT_EQ(
            d->column, int(std::string_view("    limit: ").size() + c.limit.indexOf(c.at)) + 1)
            << c.limit.toStdString() << ": " << dump(r.diagnostics);
        EXPECT_TRUE(d->message.contains(c.says)) << d->message.toStdString();
    }
}
