-- Sliding window counter. ARGV[2] limit, ARGV[3] window µs.
-- State: 24 bytes, struct.pack('<ddd', window start µs, current, previous): little-endian doubles.
-- estimate = previous * ((window - elapsed) / window) + current, in this order (as in C++).
local limit, window = p1, p2
local raw = redis.call('GET', key)
local s_start, s_cur, s_prev
if raw then
  if #raw == 24 then s_start, s_cur, s_prev = struct.unpack('<ddd', raw) end
  if not s_start or not (s_start >= 0) or s_start > 4e15 or s_start % 1 ~= 0
     or not (s_cur >= 0) or s_cur > 4e15 or s_cur % 1 ~= 0
     or not (s_prev >= 0) or s_prev > 4e15 or s_prev % 1 ~= 0 then
    return redis.error_reply('QS corrupt state in ' .. key .. ' (' .. #raw .. ' bytes, expected '
      .. 'a 24-byte sliding window counter)')
  end
end
local t = now
if s_start and s_start > t then t = s_start end
local start = t - (t % window)
local prev, cur = 0, 0
if s_start == start then prev, cur = s_prev, s_cur
elseif s_start and s_start == start - window then prev = s_cur end
local est = prev * ((window - (t - start)) / window) + cur
local code, wait = 0, 0
if cost > limit then
  code = 2
elseif est + cost <= limit then
  cur = cur + cost
  est = est + cost
  local fresh_at = start + window
  if cur > 0 then fresh_at = start + 2 * window end
  local px = math.floor((fresh_at - now + 999) / 1000) + ttl_margin
  w_px, w_val = string.format('%d', px), struct.pack('<ddd', start, cur, prev)
else
  code = 1
  local at, e
  if cur + cost <= limit then
    e = window - (limit - cost - cur) * window / prev
  else
    e = window - (limit - cost) * window / cur
  end
  local whole = math.floor(e)
  if whole < e then whole = whole + 1 end
  if whole < 0 then whole = 0 end
  if whole > window then whole = window end
  if cur + cost <= limit then at = start + whole else at = start + window + whole end
  -- nudge past rounding: the estimate at `at`, from the stored state
  for _ = 1, 8 do
    local st = at - (at % window)
    local pv, cr = 0, 0
    if s_start == st then pv, cr = s_prev, s_cur
    elseif s_start and s_start == st - window then pv = s_cur end
    if pv * ((window - (at - st)) / window) + cr + cost <= limit then break end
    at = at + 1
  end
  wait = at - now
end
local remaining = 0
if limit - est > 0 then remaining = math.floor(limit - est) end
local reset = 0
if cur > 0 then reset = start + 2 * window - now elseif prev > 0 then reset = start + window - now end
