#include "limiter/calendar/calendarwindow.h"

#include "limiter/calendar/civildate.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace qs::limiter {

using calendar::CivilDate;
using calendar::civilFromDays;
using calendar::daysFromCivil;
using calendar::floorDiv;

namespace {

constexpr std::array<std::string_view, 4> kUnitNames = {"day", "week", "month", "year"};

// The first day (days since the epoch) of the unit's period that holds `day`, and of the next.
std::int64_t periodStart(CalendarUnit unit, std::int64_t day)
{
    const CivilDate d = civilFromDays(day);
    switch (unit) {
    case CalendarUnit::Day:
        return day;
    case CalendarUnit::Week: // ISO weeks start on Monday; weekday 0 is Sunday
        return day - (calendar::weekdayFromDays(day) + 6) % 7;
    case CalendarUnit::Month:
        return daysFromCivil({d.year, d.month, 1});
    case CalendarUnit::Year:
        return daysFromCivil({d.year, 1, 1});
    }
    return day;
}

std::int64_t nextPeriodStart(CalendarUnit unit, std::int64_t start)
{
    const CivilDate d = civilFromDays(start);
    switch (unit) {
    case CalendarUnit::Day:
        return start + 1;
    case CalendarUnit::Week:
        return start + 7;
    case CalendarUnit::Month:
        return daysFromCivil({d.month == 12 ? d.year + 1 : d.year, d.month % 12 + 1, 1});
    case CalendarUnit::Year:
        return daysFromCivil({d.year + 1, 1, 1});
    }
    return start + 1;
}

std::int64_t previousPeriodStart(CalendarUnit unit, std::int64_t start)
{
    return periodStart(unit, start - 1);
}

} // namespace

std::string_view calendarUnitName(CalendarUnit unit)
{
    return kUnitNames[std::size_t(unit)];
}

std::optional<CalendarUnit> calendarUnitFromName(std::string_view name)
{
    for (std::size_t i = 0; i < kUnitNames.size(); ++i)
        if (kUnitNames[i] == name)
            return CalendarUnit(i);
    return std::nullopt;
}

Micros nominalLength(CalendarUnit unit)
{
    switch (unit) {
    case CalendarUnit::Day:
        return kMicrosPerDay;
    case CalendarUnit::Week:
        return 7 * kMicrosPerDay;
    case CalendarUnit::Month:
        return 30 * kMicrosPerDay;
    case CalendarUnit::Year:
        return 365 * kMicrosPerDay;
    }
    return kMicrosPerDay;
}

Micros longestLength(CalendarUnit unit)
{
    const Micros days = unit == CalendarUnit::Month ? 31
        : unit == CalendarUnit::Year                ? 366
                                                    : nominalLength(unit) / kMicrosPerDay;
    return days * kMicrosPerDay + kMicrosPerHour;
}

Micros shortestLength(CalendarUnit unit)
{
    const Micros days = unit == CalendarUnit::Month ? 28 : nominalLength(unit) / kMicrosPerDay;
    return days * kMicrosPerDay - kMicrosPerHour;
}

CalendarWindows::CalendarWindows(CalendarUnit unit, std::shared_ptr<const calendar::TimeZone> zone)
    : m_unit(unit), m_zone(zone ? std::move(zone) : calendar::TimeZone::utc())
{
}

WindowBounds CalendarWindows::compute(Micros t) const
{
    const std::int64_t seconds = floorDiv(t, kMicrosPerSecond);
    const std::int64_t localDay = floorDiv(seconds + m_zone->offsetAt(seconds), 86400);
    auto instant = [&](std::int64_t day) {
        return m_zone->firstInstantAtOrAfterLocal(day * 86400) * kMicrosPerSecond;
    };
    // The local date's period is the answer but for the hour after a change that sets the
    // clock back over midnight (its local date is the day before, its window the new one):
    // step until the window holds t.
    std::int64_t first = periodStart(m_unit, localDay);
    std::int64_t next = nextPeriodStart(m_unit, first);
    while (instant(next) <= t) {
        first = next;
        next = nextPeriodStart(m_unit, first);
    }
    while (instant(first) > t) {
        next = first;
        first = previousPeriodStart(m_unit, first);
    }
    return {instant(first), instant(next)};
}

std::size_t formatGivenWindows(const WindowCalendar &calendar, Micros now, char (&out)[64])
{
    const WindowBounds current = calendar.at(now);
    const WindowBounds next = calendar.at(current.end);
    const int n = std::snprintf(out, sizeof out, "%lld %lld %lld", (long long)current.start,
        (long long)current.end, (long long)next.end);
    return n > 0 ? std::size_t(n) : 0;
}

std::optional<GivenWindows> parseGivenWindows(std::string_view text)
{
    Micros b[3] = {};
    const char *p = text.data();
    const char *end = p + text.size();
    for (int i = 0; i < 3; ++i) {
        if (i > 0 && (p == end || *p++ != ' '))
            return std::nullopt;
        const auto [next, ec] = std::from_chars(p, end, b[i]);
        if (ec != std::errc() || next == p || b[i] < 0)
            return std::nullopt;
        p = next;
    }
    if (p != end || !(b[0] < b[1] && b[1] < b[2]))
        return std::nullopt;
    return GivenWindows(b[0], b[1], b[2]);
}

WindowBounds CalendarWindows::at(Micros t) const
{
    // A sequence lock without fences (TSan does not model them): the bounds are stored with
    // release after the counter turned odd, so a reader that loads a new bound with acquire
    // also sees the odd (or a later) counter on its second look and retries by computing.
    const std::uint64_t before = m_sequence.load(std::memory_order_acquire);
    const Micros start = m_start.load(std::memory_order_acquire);
    const Micros end = m_end.load(std::memory_order_acquire);
    if (before % 2 == 0 && before > 0 && m_sequence.load(std::memory_order_relaxed) == before
        && start <= t && t < end)
        return {start, end};
    const WindowBounds w = compute(t);
    // Publish it unless another thread is writing; losing the race only costs a later compute.
    std::uint64_t expected = before;
    if (before % 2 == 0
        && m_sequence.compare_exchange_strong(expected, before + 1, std::memory_order_acquire)) {
        m_start.store(w.start, std::memory_order_release);
        m_end.store(w.end, std::memory_order_release);
        m_sequence.store(before + 2, std::memory_order_release);
    }
    return w;
}

} // namespace qs::limiter
