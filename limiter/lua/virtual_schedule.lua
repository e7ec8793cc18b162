-- The virtual-scheduling core of gcra.lua and leaky_bucket.lua (appended to each at build time,
-- after they set interval, slots and shape). Mirrors limiter/virtualschedule.h.
-- State: string "<time the backlog has drained, µs>" (GCRA's theoretical arrival time).
local raw = redis.call('GET', key)
local tat = 0
if raw then
  tat = tonumber(raw)
  if not tat then return redis.error_reply('QS corrupt state in ' .. key .. ': ' .. raw) end
end
local capacity = slots * interval
local base = tat
if now > base then base = now end
local nxt = base + cost * interval
local backlog = base - now
local code, wait = 0, 0
if cost > slots then
  code = 2
elseif nxt - now <= capacity then
  if shape == 1 then wait = base - now end
  backlog = nxt - now
  local px = math.floor((backlog + 999) / 1000) + ttl_margin
  if px < 1 then px = 1 end -- a cost of 0 may leave no backlog
  redis.call('SET', key, string.format('%d', nxt), 'PX', px)
else
  code = 1
  wait = nxt - capacity - now
end
local remaining = math.floor((capacity - backlog) / interval)
if remaining < 0 then remaining = 0 end
local reset = backlog
