-- Shared head of every Quota Studio script (prepended at build time).
-- KEYS[1]: the state key.  ARGV[1]: now in µs, or '' for Redis TIME.  ARGV[2]: cost.
-- ARGV[3]: metrics key prefix, or '' when metrics are off.  ARGV[4..]: the algorithm's parameters.
-- Reply: {allowed 0|1, reason, remaining, retry_after_us, reset_after_us, delay_us}.
-- Numbers in state are written with string.format: Lua's tostring keeps only 14 digits.
local key = KEYS[1]
local explicit_now = ARGV[1] ~= ''
local now
if explicit_now then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local cost = tonumber(ARGV[2])
if not now or not cost or cost < 0 or cost ~= math.floor(cost) then
  return redis.error_reply('QS bad arguments: now and cost must be whole numbers >= 0')
end
local function param(i)
  local v = tonumber(ARGV[i])
  if not v or v ~= v or v < 0 or v > 4e15 then
    error({err = 'QS bad parameter ' .. (i - 3) .. ': ' .. tostring(ARGV[i])})
  end
  return v
end
local function corrupt(raw)
  return redis.error_reply('QS corrupt state in ' .. key .. ': ' .. tostring(raw))
end
-- Positive µs rounded up (mirrors detail::ceilMicros), and the TTL in ms for PX: the key lives
-- until its state equals a fresh one. With an explicit now (tests, simulation) Redis' own clock
-- runs at another pace, so a second of margin keeps a key from expiring before its time there.
local function ceil_us(x)
  if x <= 0 then return 0 end
  local whole = math.floor(x)
  if whole < x then return whole + 1 end
  return whole
end
local function ttl_ms(us)
  local ms = math.floor((us + 999) / 1000)
  if explicit_now then ms = ms + 1000 end
  if ms < 1 then ms = 1 end
  return ms
end
local function metric(allowed)
  if ARGV[3] == '' then return end
  local mkey = ARGV[3] .. ':' .. string.format('%d', math.floor(now / 1000000))
  redis.call('HINCRBY', mkey, allowed == 1 and 'a' or 'd', 1)
  redis.call('EXPIRE', mkey, 120)
end
local function reply(allowed, reason, remaining, retry, reset, delay)
  metric(allowed)
  return {allowed, reason, remaining, retry, reset, delay}
end
-- Reason codes match limiter::Reason: 0 none, 1 limit exceeded, 2 cost exceeds limit.
