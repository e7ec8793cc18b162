-- Leaky bucket. ARGV[4] interval µs (rounded up), ARGV[5] queue, ARGV[6] 1 for shape, 0 police.
-- State: string "<time the bucket has drained, µs>". Admission is GCRA's with queue + 1 slots.
local interval, slots, shape = param(4), param(5) + 1, param(6)
local raw = redis.call('GET', key)
local tat = 0
if raw then
  tat = tonumber(raw)
  if not tat then return corrupt(raw) end
end
local capacity = slots * interval
local base = tat
if now > base then base = now end
local nxt = base + cost * interval
local backlog = base - now
local allowed, reason, retry, delay = 0, 0, 0, 0
if cost > slots then
  reason = 2
elseif nxt - now <= capacity then
  allowed = 1
  backlog = nxt - now
  if shape == 1 then delay = base - now end
  redis.call('SET', key, string.format('%d', nxt), 'PX', ttl_ms(backlog))
else
  reason = 1
  retry = nxt - capacity - now
end
local remaining = math.floor((capacity - backlog) / interval)
if remaining < 0 then remaining = 0 end
return reply(allowed, reason, remaining, retry, backlog, delay)
