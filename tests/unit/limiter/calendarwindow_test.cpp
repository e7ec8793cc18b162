// Calendar windows: where every day, week, month and year starts in a time zone, checked
// against Python's zoneinfo (an independent reader of the same zone files) over 2026-2030 as
// the Redis bundle's middleware computes them, and the fixed window that counts in them.
#include "limiter/algorithms/fixedwindow.h"
#include "limiter/calendar/calendarwindow.h"
#include "limiter/calendar/civildate.h"
#include "limiter/calendar/posixtzrule.h"
#include "limiter/calendar/timezone.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace qs::limiter;
using calendar::TimeZone;

namespace {

constexpr Micros kSecond = kMicrosPerSecond;

// Half-hour and 45-minute offsets, a half-hour DST shift (Lord Howe), midnights skipped
// (Havana's spring change is at 00:00, Santiago's at 24:00), the hour before midnight repeated
// (Santiago's autumn: a 25-hour day),
// negative DST in the files (Dublin), the southern hemisphere, and UTC.
const char *const kZones[]
    = {"Europe/Berlin", "America/New_York", "America/Havana", "America/Santiago", "Asia/Kolkata",
        "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham", "Europe/Dublin", "UTC"};

std::shared_ptr<const TimeZone> zone(const std::string &name)
{
    std::string why;
    auto z = TimeZone::load(name, why);
    EXPECT_TRUE(z) << name << ": " << why;
    return z;
}

// zone -> unit -> every window start (UTC seconds), from zoneinfo.
using Starts = std::map<std::string, std::map<std::string, std::vector<std::int64_t>>>;

Starts zoneinfoStarts()
{
    // Debian's python3, which scripts/deps equips (python3-redis: the script imports the
    // bundle's middleware); another python3 earlier on PATH may lack it.
    std::string command
        = "/usr/bin/python3 " QS_TEST_DATA_DIR "/calendar/zoneinfo_boundaries.py 2026 2030";
    for (const char *z : kZones)
        command += std::string(" ") + z;
    Starts starts;
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
        return starts;
    char line[256];
    while (std::fgets(line, sizeof line, pipe)) {
        std::istringstream in(line);
        std::string z, unit;
        std::int64_t seconds = 0;
        if (in >> z >> unit >> seconds)
            starts[z][unit].push_back(seconds);
    }
    EXPECT_EQ(pclose(pipe), 0) << command;
    return starts;
}

} // namespace

TEST(CivilDate, EveryDayFrom1900To2200RoundTripsAndCountsWeekdays)
{
    const std::int64_t first = calendar::daysFromCivil({1900, 1, 1});
    const std::int64_t last = calendar::daysFromCivil({2200, 12, 31});
    calendar::CivilDate expected{1900, 1, 1};
    for (std::int64_t day = first; day <= last; ++day) {
        ASSERT_EQ(calendar::civilFromDays(day), expected) << day;
        ASSERT_EQ(calendar::daysFromCivil(expected), day);
        if (++expected.day > calendar::daysInMonth(expected.year, expected.month)) {
            expected.day = 1;
            if (++expected.month > 12) {
                expected.month = 1;
                ++expected.year;
            }
        }
    }
    EXPECT_EQ(calendar::weekdayFromDays(calendar::daysFromCivil({2026, 12, 7})), 1); // a Monday
}

TEST(PosixTzRule, ReadsTheRulesZoneFilesEndWith)
{
    std::string why;
    const auto berlin = calendar::PosixTzRule::parse("CET-1CEST,M3.5.0,M10.5.0/3", why);
    ASSERT_TRUE(berlin) << why;
    EXPECT_EQ(berlin->standardOffset(), 3600);
    const auto changes = berlin->changesIn(2026);
    ASSERT_EQ(changes.size(), 2u);
    EXPECT_EQ(changes[0].at, 1774746000); // 2026-03-29 01:00 UTC
    EXPECT_EQ(changes[0].offset, 7200);
    EXPECT_EQ(changes[1].at, 1792890000); // 2026-10-25 01:00 UTC
    const auto santiago = calendar::PosixTzRule::parse("<-04>4<-03>,M9.1.6/24,M4.1.6/24", why);
    ASSERT_TRUE(santiago) << why;
    EXPECT_EQ(santiago->changesIn(2026)[0].at, 1775358000); // 2026-04-05 03:00 UTC, the end
    const auto kolkata = calendar::PosixTzRule::parse("IST-5:30", why);
    ASSERT_TRUE(kolkata) << why;
    EXPECT_EQ(kolkata->standardOffset(), 5 * 3600 + 1800);
    EXPECT_TRUE(kolkata->changesIn(2026).empty());
    for (const char *bad : {"", "X1", "CET", "CET-1CEST", "CET-1CEST,M13.5.0,M10.5.0",
             "CET-1CEST,M3.5.0", "<ab", "CET-1CEST,M3.5.0,M10.5.0/200"})
        EXPECT_FALSE(calendar::PosixTzRule::parse(bad, why)) << bad;
}

TEST(TimeZone, RefusesNamesThatAreNotZonesBeforeOpeningAnything)
{
    std::string why;
    for (const char *bad : {"../../etc/passwd", "/etc/localtime", "Europe/../../x", "Europe/", "",
             ".hidden", "Europe/Ber lin", "Europe\\Berlin"}) {
        EXPECT_FALSE(TimeZone::load(bad, why)) << bad;
        EXPECT_NE(why.find("not a time zone name"), std::string::npos) << bad << ": " << why;
    }
    EXPECT_FALSE(TimeZone::load("Europe/Berlinn", why));
    EXPECT_NE(why.find("no time zone 'Europe/Berlinn'"), std::string::npos) << why;
    EXPECT_FALSE(TimeZone::load("right/Europe/Berlin", why)) << "leap seconds";
    EXPECT_FALSE(TimeZone::fromTzif("x", "TZif2 garbage", why));
    EXPECT_EQ(TimeZone::load("UTC", why)->offsetAt(0), 0);
}

TEST(TimeZone, UnrollsTheClosingRuleBeyondTheFilesLastChange)
{
    // Debian's files list changes to 2037; the rule takes over after.
    const auto berlin = zone("Europe/Berlin");
    ASSERT_TRUE(berlin);
    const std::int64_t july2150 = calendar::daysFromCivil({2150, 7, 1}) * 86400;
    const std::int64_t january2150 = calendar::daysFromCivil({2150, 1, 1}) * 86400;
    EXPECT_EQ(berlin->offsetAt(july2150), 7200);
    EXPECT_EQ(berlin->offsetAt(january2150), 3600);
}

TEST(CalendarWindows, EveryStartFrom2026To2030IsWhereZoneinfoPutsIt)
{
    const Starts reference = zoneinfoStarts();
    ASSERT_EQ(reference.size(), std::size(kZones))
        << "Debian's python3 with python3-redis and tzdata needed (scripts/deps)";
    std::size_t checked = 0;
    for (const auto &[zoneName, units] : reference) {
        const auto z = zone(zoneName);
        ASSERT_TRUE(z);
        for (const auto &[unitName, starts] : units) {
            const CalendarWindows windows(*calendarUnitFromName(unitName), z);
            ASSERT_GT(starts.size(), 2u);
            for (std::size_t i = 0; i + 1 < starts.size(); ++i) {
                const WindowBounds expected{starts[i] * kSecond, starts[i + 1] * kSecond};
                const Micros probes[] = {expected.start, expected.end - 1,
                    expected.start + (expected.end - expected.start) / 2};
                for (Micros t : probes) {
                    ASSERT_EQ(windows.compute(t), expected)
                        << zoneName << " " << unitName << " at " << t / kSecond;
                    ASSERT_EQ(windows.at(t), expected) << zoneName << " " << unitName;
                }
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 20000u);
}

TEST(CalendarWindows, DaysAcrossDaylightSavingChangesAreNotTwentyFourHours)
{
    const CalendarWindows berlin(CalendarUnit::Day, zone("Europe/Berlin"));
    const Micros spring = 1774746000 * kSecond; // 2026-03-29 03:00 local, the clock moved
    EXPECT_EQ(berlin.at(spring).end - berlin.at(spring).start, 23 * kMicrosPerHour);
    const CalendarWindows havana(CalendarUnit::Day, zone("America/Havana"));
    // 2026-03-08: Havana's clock goes from 23:59:59 to 01:00, the day starts at 01:00 local.
    const WindowBounds w = havana.at(1772949600 * kSecond);
    EXPECT_EQ(w.start, 1772946000 * kSecond);
    EXPECT_EQ(w.end - w.start, 23 * kMicrosPerHour);
}

TEST(CalendarWindows, ManyThreadsSeeTheSameWindowsAsTheUncachedComputation)
{
    const CalendarWindows windows(CalendarUnit::Day, zone("Europe/Berlin"));
    const Micros start = calendar::daysFromCivil({2026, 3, 20}) * kMicrosPerDay;
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int k = 0; k < 4; ++k)
        threads.emplace_back([&, k] {
            // Interleaved times across many days, so that the cache is replaced all the time.
            for (Micros i = 0; i < 20000; ++i) {
                const Micros t = start + ((i * 7919 + k * 104729) % 20000) * 7 * kMicrosPerMinute;
                if (windows.at(t) != windows.compute(t))
                    ++wrong;
            }
        });
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(FixedWindowCalendar, AMonthlyQuotaResetsOnTheFirstInItsZoneAndReportsTheRealReset)
{
    FixedWindowConfig config{{3, nominalLength(CalendarUnit::Month)}};
    config.calendar = std::make_shared<CalendarWindows>(CalendarUnit::Month, zone("Europe/Berlin"));
    FixedWindowState state;
    // 2026-01-31 22:30 UTC is 23:30 in Berlin: January's window, 30 minutes left.
    const Micros lateJanuary = 1769898600 * kSecond;
    for (int i = 0; i < 3; ++i)
        EXPECT_TRUE(decide(config, state, lateJanuary, 1).allowed);
    const Decision denied = decide(config, state, lateJanuary, 1);
    EXPECT_FALSE(denied.allowed);
    EXPECT_EQ(denied.retryAfter, 30 * kMicrosPerMinute);
    EXPECT_EQ(denied.window, 31 * kMicrosPerDay);
    // 23:00 UTC is midnight in Berlin: February, which has 28 days in 2026.
    const Decision february = decide(config, state, lateJanuary + 30 * kMicrosPerMinute, 1);
    EXPECT_TRUE(february.allowed);
    EXPECT_EQ(february.remaining, 2);
    EXPECT_EQ(february.window, 28 * kMicrosPerDay);
    EXPECT_EQ(february.resetAfter, 28 * kMicrosPerDay);
}
