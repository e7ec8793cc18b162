-- Fixed window aligned to the epoch. ARGV[4] limit, ARGV[5] window µs.
-- State: string "<window start µs> <count>".
local limit, window = param(4), param(5)
local raw = redis.call('GET', key)
local start_stored, count_stored
if raw then
  local sp = string.find(raw, ' ', 1, true)
  if not sp then return corrupt(raw) end
  start_stored = tonumber(string.sub(raw, 1, sp - 1))
  count_stored = tonumber(string.sub(raw, sp + 1))
  if not start_stored or not count_stored then return corrupt(raw) end
end
local t = now
if start_stored and start_stored > t then t = start_stored end
local start = t - (t % window)
local count = 0
if start_stored == start then count = count_stored end
local until_next = start + window - now
local allowed, reason, retry = 0, 0, 0
if cost > limit then
  reason = 2
elseif count + cost <= limit then
  count = count + cost
  allowed = 1
  redis.call('SET', key, string.format('%d %d', start, count), 'PX', ttl_ms(until_next))
else
  reason = 1
  retry = until_next
end
local reset = 0
if count > 0 then reset = until_next end
return reply(allowed, reason, limit - count, retry, reset, 0)
