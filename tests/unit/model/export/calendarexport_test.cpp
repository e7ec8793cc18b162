// Calendar quotas on the way to the gateways: natively where a gateway counts calendar windows
// (Kong's day, month and year and envoyproxy/ratelimit's day, all in UTC), otherwise the nominal
// length with a warning at the limit that states the worst case within one calendar window.
#include "model/export/exporter.h"
#include "model/policy/policyreader.h"
#include "tests/unit/model/diagnosticsdump.h"

#include <yaml-cpp/yaml.h>

#include <gtest/gtest.h>

using namespace qs;
using qs::test::dump;

namespace {

const char *const kPolicy = R"(quota_studio: 1
name: t
routes:
  - id: search
    match: { path: /v1/search }
    key: header:X-Api-Key
    limits:
      - { name: burst, algorithm: fixed_window, limit: 10, window: 1s }
      - { name: monthly, algorithm: fixed_window, limit: 1000, calendar: month, time_zone: UTC }
  - id: export
    match: { path: /v1/export }
    key: header:X-Api-Key
    limit: { algorithm: fixed_window, limit: 70, calendar: week, time_zone: Europe/Berlin }
)";

Policy policy(const QByteArray &text)
{
    const PolicyReadResult r = readPolicy(text, QStringLiteral("t.yaml"));
    EXPECT_FALSE(hasErrors(r.diagnostics));
    return r.policy;
}

ExportResult exportTo(const char *target, const QByteArray &text)
{
    return exporterById(QString::fromLatin1(target))->exportPolicy(policy(text));
}

const Diagnostic *warningAt(const ExportResult &r, const QString &path)
{
    for (const Diagnostic &d : r.diagnostics)
        if (d.path == path && d.severity == Diagnostic::Severity::Warning)
            return &d;
    return nullptr;
}

} // namespace

TEST(CalendarExport, KongCountsAUtcMonthAsItsOwnMonthAndAWeekAsNothingItHas)
{
    const ExportResult r = exportTo("kong", kPolicy);
    ASSERT_FALSE(r.files.empty()) << dump(r.diagnostics);
    const YAML::Node kong = YAML::Load(r.files.front().content.toStdString());
    YAML::Node search;
    for (const YAML::Node &s : kong["services"])
        if (s["name"].as<std::string>() == "qs-search")
            search = s;
    ASSERT_TRUE(search);
    const YAML::Node config = search["routes"][0]["plugins"][0]["config"];
    EXPECT_EQ(config["second"].as<int>(), 10);
    EXPECT_EQ(config["month"].as<int>(), 1000) << "Kong's month starts on the 1st, 00:00 UTC";
    EXPECT_FALSE(config["day"]);
    EXPECT_FALSE(warningAt(r, QStringLiteral("routes[0].limits[1].calendar")))
        << dump(r.diagnostics);
    // A week in Berlin: Kong has no week, so 70 per 7 days becomes 10 a day (its own note),
    // and this warning bounds what a calendar week can then hold (three 7-day periods touch
    // a week of 7 days and an hour).
    const Diagnostic *week = warningAt(r, QStringLiteral("routes[1].limit.calendar"));
    ASSERT_TRUE(week) << dump(r.diagnostics);
    EXPECT_TRUE(week->message.contains(QStringLiteral("Kong has no calendar windows")))
        << week->message.toStdString();
    EXPECT_TRUE(week->message.contains(QStringLiteral("Monday 00:00, Europe/Berlin")))
        << week->message.toStdString();
    EXPECT_TRUE(week->message.contains(QStringLiteral("up to 210 (designed: 70)")))
        << week->message.toStdString();
}

TEST(CalendarExport, AZoneOtherThanUtcIsWarnedWithTheOverlap)
{
    QByteArray berlin = kPolicy;
    berlin.replace("calendar: month, time_zone: UTC", "calendar: month, time_zone: Europe/Berlin");
    const ExportResult r = exportTo("kong", berlin);
    ASSERT_FALSE(r.files.empty()) << dump(r.diagnostics);
    const Diagnostic *zone = warningAt(r, QStringLiteral("routes[0].limits[1].time_zone"));
    ASSERT_TRUE(zone) << dump(r.diagnostics);
    EXPECT_EQ(zone->message,
        QStringLiteral("Kong counts calendar months in UTC only: the quota resets at 00:00 on "
                       "the 1st UTC, not in Europe/Berlin, so a month of Europe/Berlin overlaps "
                       "two of Kong's and a client may get up to 2000 within it (designed: "
                       "1000)"));
}

TEST(CalendarExport, NginxHasNoCalendarAndSaysWhatAMonthCanHold)
{
    const ExportResult r = exportTo("nginx", kPolicy);
    ASSERT_FALSE(r.files.empty()) << dump(r.diagnostics);
    const Diagnostic *month = warningAt(r, QStringLiteral("routes[0].limits[1].calendar"));
    ASSERT_TRUE(month) << dump(r.diagnostics);
    // 30-day periods: a month of 31 days and an hour can touch three of them.
    EXPECT_TRUE(month->message.contains(QStringLiteral(
        "NGINX has no calendar windows: the calendar month (00:00 on the 1st, UTC) is treated "
        "as 1000 per 30d")))
        << month->message.toStdString();
    EXPECT_TRUE(month->message.contains(QStringLiteral("up to 3000 (designed: 1000)")));
}

TEST(CalendarExport, EnvoysRateLimitServiceCountsAUtcDayExactly)
{
    QByteArray daily = kPolicy;
    daily.replace("limit: 1000, calendar: month, time_zone: UTC", "limit: 1000, calendar: day");
    const ExportResult r = exportTo("envoy", daily);
    ASSERT_FALSE(r.files.empty()) << dump(r.diagnostics);
    EXPECT_FALSE(warningAt(r, QStringLiteral("routes[0].limits[1]"))) << dump(r.diagnostics);
    EXPECT_FALSE(warningAt(r, QStringLiteral("routes[0].limits[1].calendar")));
    bool day = false;
    for (const auto &f : r.files)
        day = day
            || (f.content.contains("unit: day") && f.content.contains("requests_per_unit: 1000"));
    EXPECT_TRUE(day);
}
