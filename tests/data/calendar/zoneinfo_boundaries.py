#!/usr/bin/env python3
"""Calendar window boundaries by Python's zoneinfo: the reference for Quota Studio's own
time zone reader (tests/unit/limiter/calendarwindow_test.cpp).

Usage: zoneinfo_boundaries.py FIRST_YEAR LAST_YEAR ZONE...
Prints "zone unit seconds" for every start of a day, ISO week, month and year from FIRST_YEAR
to the first start after LAST_YEAR. A window starts at the first instant whose local time is
its local midnight or later: where the clock jumps over midnight that is the jump, where
midnight occurs twice its first occurrence.
"""
import datetime as dt
import sys
import zoneinfo

HOUR = 3600
SPAN = 26 * HOUR  # offsets lie within +-26 h of UTC


def local_seconds(zone, t):
    """Seconds since 1970-01-01 00:00 on the local clock at UTC instant t."""
    utc = dt.datetime.fromtimestamp(t, dt.timezone.utc)
    return t + int(utc.astimezone(zone).utcoffset().total_seconds())


def first_instant(zone, day):
    midnight = dt.datetime(day.year, day.month, day.day)
    target = int((midnight - dt.datetime(1970, 1, 1)).total_seconds())
    guess = int(midnight.replace(tzinfo=zone, fold=0).timestamp())
    offsets = {local_seconds(zone, t) - t for t in range(guess - SPAN, guess + 1, HOUR)}
    if len(offsets) == 1 and local_seconds(zone, guess) == target:
        return guess  # no change of offset nearby: local midnight is guess
    # Near a change: the first minute (changes and offsets fall on minutes in these years)
    # whose local time reaches midnight.
    for t in range(guess - SPAN, guess + 1, 60):
        if local_seconds(zone, t) >= target:
            return t
    raise AssertionError(f"no start found for {day} in {zone}")


def starts(unit, first_year, last_year):
    day = dt.date(first_year, 1, 1)
    end = dt.date(last_year + 1, 1, 1)
    if unit == "week":
        day -= dt.timedelta(days=day.weekday())
    while True:
        yield day
        if day >= end:
            return
        if unit == "day":
            day += dt.timedelta(days=1)
        elif unit == "week":
            day += dt.timedelta(days=7)
        elif unit == "month":
            day = dt.date(day.year + day.month // 12, day.month % 12 + 1, 1)
        else:
            day = dt.date(day.year + 1, 1, 1)


def main():
    first_year, last_year = int(sys.argv[1]), int(sys.argv[2])
    out = []
    for name in sys.argv[3:]:
        zone = zoneinfo.ZoneInfo(name)
        for unit in ("day", "week", "month", "year"):
            for day in starts(unit, first_year, last_year):
                out.append(f"{name} {unit} {first_instant(zone, day)}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
