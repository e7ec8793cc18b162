-- Sliding window log. ARGV[2] limit, ARGV[3] window µs.
-- State: sorted set, one member per admitted unit, scored by its time in µs. Members are
-- "<µs>:<n>", n counting the units already logged at that µs, so none overwrites another.
local limit, window = p1, p2
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local t = now
if newest[2] then
  local last = tonumber(newest[2])
  if last > t then t = last end
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%d', t - window))
local count = redis.call('ZCARD', key)
local code, wait = 0, 0
if cost > limit then
  code = 2
elseif count + cost <= limit then
  if cost > 0 then
    local ts = string.format('%d', t)
    local same = redis.call('ZCOUNT', key, ts, ts)
    local args = {}
    for i = 1, cost do
      args[#args + 1] = ts
      args[#args + 1] = ts .. ':' .. (same + i - 1)
    end
    w_zadd = args
  end
  count = count + cost
else
  code = 1
  local must_expire = count + cost - limit
  local oldest = redis.call('ZRANGE', key, must_expire - 1, must_expire - 1, 'WITHSCORES')
  wait = tonumber(oldest[2]) + window - now
end
local remaining = limit - count
local reset = 0
if count > 0 then
  -- The newest entry: the ones this request adds (at t, never before an older one), or the log's.
  local newest_at = t
  if not w_zadd then newest_at = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2]) end
  reset = newest_at + window - now
  w_pexpire = string.format('%d', math.floor((reset + 999) / 1000) + ttl_margin)
end
