#!/usr/bin/python3
"""Writes rate-limit keys with the real Python `limits` library (Debian python3-limits) through
its Redis storage, then prints what the library itself says about each (get_window_stats) as
JSON, for the monitor's python-limits preset to be checked against. Usage: script.py PORT"""
import json
import sys
import time

from limits import RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.storage import RedisStorage
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter

storage = RedisStorage(f"redis://127.0.0.1:{int(sys.argv[1])}")
fixed = FixedWindowRateLimiter(storage)
moving = MovingWindowRateLimiter(storage)
per_minute = RateLimitItemPerMinute(10)
per_ten_seconds = RateLimitItemPerSecond(5, 10)

out = []
for limiter, item, endpoint, hits in [
    (fixed, per_minute, "app.home", {"alice": 3, "bob": 12}),
    (moving, per_ten_seconds, "app.search", {"carol": 2, "dave": 5, "erin": 9}),
]:
    for client, n in hits.items():
        for _ in range(n):
            limiter.hit(item, endpoint, client)
            time.sleep(0.01)
        reset, remaining = limiter.get_window_stats(item, endpoint, client)
        out.append({"key": item.key_for(endpoint, client), "reset": reset,
                    "remaining": remaining, "time": time.time()})
print(json.dumps(out))
