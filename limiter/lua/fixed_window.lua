-- Fixed window aligned to the epoch. ARGV[4] limit, ARGV[5] window µs.
-- State: string "<window start µs> <count>".
local limit, window = p1, p2
local raw = redis.call('GET', key)
local start_stored, count_stored
if raw then
  local sp = string.find(raw, ' ', 1, true)
  if sp then
    start_stored = tonumber(string.sub(raw, 1, sp - 1))
    count_stored = tonumber(string.sub(raw, sp + 1))
  end
  if not start_stored or not count_stored then
    return redis.error_reply('QS corrupt state in ' .. key .. ': ' .. raw)
  end
end
local t = now
if start_stored and start_stored > t then t = start_stored end
local start = t - (t % window)
local count = 0
if start_stored == start then count = count_stored end
local until_next = start + window - now
local code, wait = 0, 0
if cost > limit then
  code = 2
elseif count + cost <= limit then
  count = count + cost
  redis.call('SET', key, string.format('%d %d', start, count), 'PX',
             math.floor((until_next + 999) / 1000) + ttl_margin)
else
  code = 1
  wait = until_next
end
local remaining = limit - count
local reset = 0
if count > 0 then reset = until_next end
