#pragma once
// Windows that follow the calendar of a time zone: a day from local midnight to local midnight
// (23 or 25 hours across a DST change), an ISO week from Monday, a month from the 1st, a year
// from January 1st. Where a midnight does not exist (the clock jumps over it) the window starts
// at the jump; where it occurs twice, at its first occurrence.
#include "limiter/algorithms/time.h"
#include "limiter/calendar/timezone.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string_view>

namespace qs::limiter {

enum class CalendarUnit : std::uint8_t { Day, Week, Month, Year };

std::string_view calendarUnitName(CalendarUnit unit); // "day", "week", "month", "year"
std::optional<CalendarUnit> calendarUnitFromName(std::string_view name);
// A unit's usual length (a day, 7 days, 30 days, 365 days): what a gateway without calendar
// windows is given instead, and a window's nominal size in descriptions.
Micros nominalLength(CalendarUnit unit);
// The longest a window of the unit lasts where clocks move by an hour: a day of 25 hours, a
// month of 31 days and an hour. (A zone that moved its clock by a day, as Samoa in 2011, is
// the exception.)
Micros longestLength(CalendarUnit unit);
// The shortest likewise: a day of 23 hours, a month of 28 days less an hour.
Micros shortestLength(CalendarUnit unit);

struct WindowBounds {
    Micros start = 0, end = 0; // [start, end)
    friend bool operator==(const WindowBounds &, const WindowBounds &) = default;
};

class CalendarWindows;

// What a fixed window asks of its calendar: the window that holds a time. A calendar of a zone
// (CalendarWindows) computes it; the Redis module is given it by its caller (GivenWindows),
// as the Lua script is.
class WindowCalendar {
public:
    virtual ~WindowCalendar() = default;
    virtual WindowBounds at(Micros t) const = 0;
    // The shortest window: how many windows an interval can touch (admission bounds).
    virtual Micros shortest() const = 0;
    // The unit and zone, where the calendar has them (not given windows).
    virtual const CalendarWindows *zoned() const { return nullptr; }
};

// The windows of one unit in one zone. Shared by every copy of a config (through a
// shared_ptr) and safe to use from any number of threads: the window of the moment is cached
// behind a sequence counter, so that a decision computes boundaries only when a window ends.
class CalendarWindows final : public WindowCalendar {
public:
    CalendarWindows(CalendarUnit unit, std::shared_ptr<const calendar::TimeZone> zone);

    CalendarUnit unit() const { return m_unit; }
    const calendar::TimeZone &zone() const { return *m_zone; }
    // The window that holds t.
    WindowBounds at(Micros t) const override;
    Micros shortest() const override { return shortestLength(m_unit); }
    const CalendarWindows *zoned() const override { return this; }
    // The window that holds t, computed without the cache (the reference for tests).
    WindowBounds compute(Micros t) const;

private:
    CalendarUnit m_unit;
    std::shared_ptr<const calendar::TimeZone> m_zone;
    // Even: m_start/m_end hold a window; odd: a thread is writing them.
    mutable std::atomic<std::uint64_t> m_sequence{0};
    mutable std::atomic<Micros> m_start{0}, m_end{0};
};

// Two consecutive windows [b0, b1) and [b1, b2) that a caller computed around its clock's now
// (the Lua script's calendar_arg, "b0 b1 b2"): a time before b1 is in the first, any later one
// in the second; the caller checks that its time is before b2.
class GivenWindows final : public WindowCalendar {
public:
    GivenWindows(Micros b0, Micros b1, Micros b2) : m_b0(b0), m_b1(b1), m_b2(b2) { }
    WindowBounds at(Micros t) const override
    {
        return t < m_b1 ? WindowBounds{m_b0, m_b1} : WindowBounds{m_b1, m_b2};
    }
    Micros shortest() const override { return std::min(m_b1 - m_b0, m_b2 - m_b1); }
    Micros end() const { return m_b2; }

private:
    Micros m_b0, m_b1, m_b2;
};

// The windows a caller sends with a calendar fixed window: the one that holds `now` and the
// next, "b0 b1 b2" in µs, written into `out` (no allocation). Returns the text's length.
std::size_t formatGivenWindows(const WindowCalendar &calendar, Micros now, char (&out)[64]);
// The inverse: nullopt unless the text is three increasing whole numbers.
std::optional<GivenWindows> parseGivenWindows(std::string_view text);

} // namespace qs::limiter
