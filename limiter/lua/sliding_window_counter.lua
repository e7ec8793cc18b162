-- Sliding window counter. ARGV[4] limit, ARGV[5] window µs.
-- State: string "<window start µs> <current> <previous>".
-- estimate = previous * ((window - elapsed) / window) + current, in this order (as in C++).
local limit, window = param(4), param(5)
local raw = redis.call('GET', key)
local s_start, s_cur, s_prev
if raw then
  local a, b, c = string.match(raw, '^(%d+) (%d+) (%d+)$')
  s_start, s_cur, s_prev = tonumber(a), tonumber(b), tonumber(c)
  if not s_start or not s_cur or not s_prev then return corrupt(raw) end
end
local function counts_at(at)
  local start = at - (at % window)
  if s_start == start then return start, s_prev, s_cur end
  if s_start and s_start == start - window then return start, s_cur, 0 end
  return start, 0, 0
end
local function estimate_at(at)
  local start, prev, cur = counts_at(at)
  return prev * ((window - (at - start)) / window) + cur
end
local function admissible_at(at) return estimate_at(at) + cost <= limit end
local t = now
if s_start and s_start > t then t = s_start end
local start, prev, cur = counts_at(t)
local est = prev * ((window - (t - start)) / window) + cur
local allowed, reason, retry = 0, 0, 0
if cost > limit then
  reason = 2
elseif est + cost <= limit then
  cur = cur + cost
  est = est + cost
  allowed = 1
  local fresh_at = start + window
  if cur > 0 then fresh_at = start + 2 * window end
  redis.call('SET', key, string.format('%d %d %d', start, cur, prev), 'PX', ttl_ms(fresh_at - now))
else
  reason = 1
  local at
  if cur + cost <= limit then
    local e = ceil_us(window - (limit - cost - cur) * window / prev)
    if e > window then e = window end
    at = start + e
  else
    local e = ceil_us(window - (limit - cost) * window / cur)
    if e > window then e = window end
    at = start + window + e
  end
  for _ = 1, 8 do
    if admissible_at(at) then break end
    at = at + 1
  end
  retry = at - now
end
local remaining = 0
if limit - est > 0 then remaining = math.floor(limit - est) end
local reset = 0
if cur > 0 then reset = start + 2 * window - now elseif prev > 0 then reset = start + window - now end
return reply(allowed, reason, remaining, retry, reset, 0)
