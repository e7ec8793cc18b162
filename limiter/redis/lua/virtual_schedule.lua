-- The virtual-scheduling core of gcra.lua and leaky_bucket.lua (appended to each at build time,
-- after they set interval, slots and shape). Mirrors limiter/algorithms/virtualschedule.h.
-- State: 8 bytes, struct.pack('<d', drained_at µs): when the backlog has drained (GCRA's
-- theoretical arrival time), one little-endian double, exact below 2^53 µs. Binary because
-- string.format('%d') and tonumber on every call cost ~10% of the script's throughput.
local raw = redis.call('GET', key)
local tat = 0
if raw then
  tat = nil
  if #raw == 8 then tat = struct.unpack('<d', raw) end
  -- NaN fails every comparison, so `not (x >= 0)` also catches it.
  if not tat or not (tat >= 0) or tat > 4e15 or tat % 1 ~= 0 then
    return redis.error_reply('QS corrupt state in ' .. key .. ' (' .. #raw .. ' bytes, expected '
      .. 'an 8-byte schedule)')
  end
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
  w_px, w_val = string.format('%d', px), struct.pack('<d', nxt)
else
  code = 1
  wait = nxt - capacity - now
end
local remaining = math.floor((capacity - backlog) / interval)
if remaining < 0 then remaining = 0 end
local reset = backlog
