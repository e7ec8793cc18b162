-- Token bucket. ARGV[4] capacity, ARGV[5] refill count, ARGV[6] refill period µs.
-- State: string "<tokens %.17g> <updated_at µs>".
local cap, count, period = param(4), param(5), param(6)
local raw = redis.call('GET', key)
local tokens, updated
if raw then
  local sp = string.find(raw, ' ', 1, true)
  if not sp then return corrupt(raw) end
  tokens = tonumber(string.sub(raw, 1, sp - 1))
  updated = tonumber(string.sub(raw, sp + 1))
  if not tokens or not updated or tokens ~= tokens then return corrupt(raw) end
end
local function tokens_at(at)
  if not updated then return cap end
  local v = tokens + (at - updated) * count / period
  if v > cap then v = cap end
  return v
end
local function time_to_gain(n) return ceil_us(n * period / count) end
local t = now
if updated and updated > t then t = updated end
local avail = tokens_at(t)
local allowed, reason, retry = 0, 0, 0
if cost > cap then
  reason = 2
elseif avail >= cost then
  avail = avail - cost
  allowed = 1
  redis.call('SET', key, string.format('%.17g %d', avail, t), 'PX',
             ttl_ms(time_to_gain(cap - avail) + (t - now)))
else
  reason = 1
  local at = t + time_to_gain(cost - avail)
  for _ = 1, 8 do
    if tokens_at(at) >= cost then break end
    at = at + 1
  end
  retry = at - now
end
local remaining = 0
if avail > 0 then remaining = math.floor(avail) end
return reply(allowed, reason, remaining, retry, time_to_gain(cap - avail) + (t - now), 0)
