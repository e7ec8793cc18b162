"""The seed's deployment: a FastAPI app whose Lua token bucket (capacity 10, refill 2/s) is handed
the app's clock in whole seconds, `int(time.time())`, and keeps `tokens` and `last_updated` in
the hash `rate_limit:<client>` — the classic tutorial the monitor's tutorial-hash preset reads.
Run under uvicorn: REDIS_URL=redis://127.0.0.1:PORT python3 -m uvicorn seed_app:app.

The client is the X-Client header. Each answer says which second the script was handed
(X-Now), so that a replay of the log knows each decision's clock exactly."""
import os
import time

import redis.asyncio as aioredis
from fastapi import FastAPI, Request, Response

CAPACITY = 10
RATE = 2  # tokens per second

SCRIPT = """
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'last_updated')
local capacity, rate, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, last = tonumber(bucket[1]), tonumber(bucket[2])
if tokens == nil then
  tokens, last = capacity, now
end
tokens = math.min(capacity, tokens + math.max(0, now - last) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'last_updated', now)
redis.call('EXPIRE', KEYS[1], 3600)
return allowed
"""

app = FastAPI()
store = aioredis.Redis.from_url(os.environ["REDIS_URL"])
bucket = store.register_script(SCRIPT)


@app.get("/seed")
async def seed(request: Request):
    now = int(time.time())
    client = request.headers.get("X-Client", "anonymous")
    allowed = await bucket(keys=[f"rate_limit:{client}"], args=[CAPACITY, RATE, now])
    return Response("ok" if allowed else "slow down", status_code=200 if allowed else 429,
                    headers={"X-Now": str(now)})
