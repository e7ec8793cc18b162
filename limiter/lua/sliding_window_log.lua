-- Sliding window log. ARGV[4] limit, ARGV[5] window µs.
-- State: sorted set, one member per admitted unit, scored by its time in µs. Members are
-- "<µs>:<n>", n counting the units already logged at that µs, so none overwrites another.
local limit, window = param(4), param(5)
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local t = now
if newest[2] then
  local last = tonumber(newest[2])
  if last > t then t = last end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', t - window))
local count = redis.call('ZCARD', key)
local allowed, reason, retry = 0, 0, 0
if cost > limit then
  reason = 2
elseif count + cost <= limit then
  local ts = string.format('%d', t)
  local same = redis.call('ZCOUNT', key, ts, ts)
  local args = {}
  for i = 1, cost do
    args[#args + 1] = ts
    args[#args + 1] = ts .. ':' .. (same + i - 1)
  end
  if cost > 0 then redis.call('ZADD', key, unpack(args)) end
  count = count + cost
  allowed = 1
else
  reason = 1
  local must_expire = count + cost - limit
  local oldest = redis.call('ZRANGE', key, must_expire - 1, must_expire - 1, 'WITHSCORES')
  retry = tonumber(oldest[2]) + window - now
end
local reset = 0
if count > 0 then
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  reset = tonumber(last[2]) + window - now
  redis.call('PEXPIRE', key, ttl_ms(reset))
end
return reply(allowed, reason, limit - count, retry, reset, 0)
