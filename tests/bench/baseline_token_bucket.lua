-- The token bucket found in many blog posts and tutorials, kept here as the baseline the
-- Redis benchmark compares against: HMGET, refill with client-supplied integer seconds, HSET,
-- a fixed EXPIRE. It returns only allowed/denied.
-- KEYS[1] bucket; ARGV: capacity, refill per second, now (s), requested.
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local requested = tonumber(ARGV[4])
local data = redis.call('HMGET', KEYS[1], 'tokens', 'last_updated')
local tokens = tonumber(data[1]) or capacity
local last = tonumber(data[2]) or now
local delta = math.max(0, now - last)
tokens = math.min(capacity, tokens + delta * rate)
local allowed = 0
if tokens >= requested then
  tokens = tokens - requested
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'last_updated', now)
redis.call('EXPIRE', KEYS[1], 3600)
return allowed
