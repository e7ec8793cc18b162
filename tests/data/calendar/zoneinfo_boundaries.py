#!/usr/bin/env python3
"""Calendar window boundaries by Python's zoneinfo, as the Redis bundle's middleware computes
them: the reference for Quota Studio's own time zone reader
(tests/unit/limiter/calendarwindow_test.cpp). Exits non-zero if the middleware's choice of
window for a time disagrees with the starts it lists.

Usage: zoneinfo_boundaries.py FIRST_YEAR LAST_YEAR ZONE...
Prints "zone unit seconds" for every start of a day, ISO week, month and year from FIRST_YEAR
to the first start after LAST_YEAR. A window starts at the first instant whose local time is
its local midnight or later: where the clock jumps over midnight that is the jump, where
midnight occurs twice its first occurrence.
"""
import datetime as dt
import os
import sys
import zoneinfo

# The Redis bundle's middleware computes the windows it sends to Redis with zoneinfo; this
# reference uses its code, so that the C++ test holds the engine and the middleware to each
# other (and both to zoneinfo's reading of the zone files).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "resources", "redis-bundle"))
from quota_middleware import CalendarWindows  # noqa: E402


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
        zoneinfo.ZoneInfo(name)  # an unknown zone fails here, loudly
        for unit in ("day", "week", "month", "year"):
            windows = CalendarWindows(unit, name)
            found = [windows._first_instant(day) for day in starts(unit, first_year, last_year)]
            # The middleware's own choice of window for a time, on every window's first and
            # last second (every seventh day's, to keep the run short).
            step = 7 if unit == "day" else 1
            for i in range(0, len(found) - 2, step):
                expected = tuple(found[i:i + 3])
                for t in (found[i], found[i + 1] - 1):
                    got = windows._compute(t)
                    if got != expected:
                        raise SystemExit(f"{name} {unit}: the middleware's windows at {t} are "
                                         f"{got}, the starts say {expected}")
            out += [f"{name} {unit} {t}" for t in found]
    print("\n".join(out))


if __name__ == "__main__":
    main()
