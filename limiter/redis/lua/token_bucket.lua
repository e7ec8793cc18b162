-- Token bucket. ARGV[2] capacity, ARGV[3] refill count, ARGV[4] refill period µs.
-- State: 16 bytes, struct.pack('<dd', tokens, updated_at µs): two little-endian doubles.
-- Binary because it round-trips the fractional token count exactly without string.format
-- ('%.17g') and string.match on every call, which cost ~12% of the script's throughput.
local cap, count, period = p1, p2, p3
if not period or count == 0 or period == 0 then
  return redis.error_reply('QS bad parameter: token_bucket needs capacity, count > 0, period > 0')
end
local raw = redis.call('GET', key)
local tokens, updated
if raw then
  if #raw == 16 then tokens, updated = struct.unpack('<dd', raw) end
  -- NaN fails every comparison, so `not (x >= 0)` also catches it.
  if not tokens or not (tokens >= 0) or tokens > 4e15 or not (updated >= 0) or updated > 4e15 then
    return redis.error_reply('QS corrupt state in ' .. key .. ' (' .. #raw .. ' bytes, expected '
      .. 'a 16-byte token bucket)')
  end
end
local t = now
if updated and updated > t then t = updated end
local avail = cap
if updated then
  avail = tokens + (t - updated) * count / period
  if avail > cap then avail = cap end
end
local code, wait = 0, 0
if cost > cap then
  code = 2
elseif avail >= cost then
  avail = avail - cost
  local gain = (cap - avail) * period / count -- µs until full again, as ceil below
  local whole = math.floor(gain)
  if whole < gain then whole = whole + 1 end
  local px = math.floor((whole + t - now + 999) / 1000) + ttl_margin
  if px < 1 then px = 1 end -- a cost of 0 leaves a full bucket
  w_px, w_val = string.format('%d', px), struct.pack('<dd', avail, t)
else
  code = 1
  -- the first µs at which `cost` tokens are there (closed form, then nudged past rounding to
  -- either side, as the engine does)
  local gain = (cost - avail) * period / count
  local at = math.floor(gain)
  if at < gain then at = at + 1 end
  at = t + at
  for _ = 1, 8 do
    if at <= t or tokens + (at - 1 - updated) * count / period < cost then break end
    at = at - 1
  end
  for _ = 1, 8 do
    if tokens + (at - updated) * count / period >= cost then break end
    at = at + 1
  end
  wait = at - now
end
local remaining = 0
if avail > 0 then remaining = math.floor(avail) end
local reset = (cap - avail) * period / count
if reset <= 0 then reset = 0 else
  local whole = math.floor(reset)
  if whole < reset then whole = whole + 1 end
  reset = whole
end
reset = reset + (t - now)
