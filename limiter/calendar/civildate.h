#pragma once
// Dates of the proleptic Gregorian calendar as a count of days since 1970-01-01, both ways, in
// integer arithmetic (no libc, no time zone): what calendar windows and the POSIX rules of time
// zone files are computed with. The era arithmetic follows the well-known 400-year cycle.
#include <cstdint>

namespace qs::limiter::calendar {

struct CivilDate {
    std::int64_t year = 1970;
    int month = 1; // 1..12
    int day = 1; // 1..31
    friend bool operator==(const CivilDate &, const CivilDate &) = default;
};

constexpr std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

constexpr bool isLeapYear(std::int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

constexpr int daysInMonth(std::int64_t year, int month)
{
    constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && isLeapYear(year) ? 29 : kDays[month - 1];
}

// Days since 1970-01-01 of a valid date. Years counted from March, so that the leap day is the
// last of its year and every month's offset is a linear formula.
constexpr std::int64_t daysFromCivil(CivilDate d)
{
    const std::int64_t y = d.month <= 2 ? d.year - 1 : d.year;
    const std::int64_t era = floorDiv(y, 400);
    const std::int64_t yearOfEra = y - era * 400; // 0..399
    const std::int64_t monthFromMarch = d.month > 2 ? d.month - 3 : d.month + 9; // 0..11
    const std::int64_t dayOfYear = (153 * monthFromMarch + 2) / 5 + d.day - 1; // 0..365
    const std::int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146097 + dayOfEra - 719468; // 719468: days from 0000-03-01 to 1970-01-01
}

constexpr CivilDate civilFromDays(std::int64_t days)
{
    const std::int64_t z = days + 719468;
    const std::int64_t era = floorDiv(z, 146097);
    const std::int64_t dayOfEra = z - era * 146097; // 0..146096
    const std::int64_t yearOfEra
        = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
    const std::int64_t dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    const std::int64_t monthFromMarch = (5 * dayOfYear + 2) / 153;
    const int day = int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1);
    const int month = int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9);
    const std::int64_t year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
    return {year, month, day};
}

// 0 = Sunday … 6 = Saturday (POSIX TZ rules count so); 1970-01-01 was a Thursday.
constexpr int weekdayFromDays(std::int64_t days)
{
    return int(floorDiv(days + 4, 7) * -7 + days + 4);
}

static_assert(daysFromCivil({1970, 1, 1}) == 0);
static_assert(daysFromCivil({2000, 3, 1}) == 11017);
static_assert(civilFromDays(11017) == CivilDate{2000, 3, 1});
static_assert(civilFromDays(-1) == CivilDate{1969, 12, 31});
static_assert(weekdayFromDays(0) == 4 && weekdayFromDays(-1) == 3);

} // namespace qs::limiter::calendar
