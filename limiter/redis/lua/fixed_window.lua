-- Fixed window aligned to the epoch. ARGV[2] limit, ARGV[3] window µs.
-- State: 16 bytes, struct.pack('<dd', window start µs, count): little-endian doubles.
local limit, window = p1, p2
local raw = redis.call('GET', key)
local start_stored, count_stored
if raw then
  if #raw == 16 then start_stored, count_stored = struct.unpack('<dd', raw) end
  if not start_stored or not (start_stored >= 0) or start_stored > 4e15 or start_stored % 1 ~= 0
     or not (count_stored >= 0) or count_stored > 4e15 or count_stored % 1 ~= 0 then
    return redis.error_reply('QS corrupt state in ' .. key .. ' (' .. #raw .. ' bytes, expected '
      .. 'a 16-byte fixed window)')
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
  local px = math.floor((until_next + 999) / 1000) + ttl_margin
  w_px, w_val = string.format('%d', px), struct.pack('<dd', start, count)
else
  code = 1
  wait = until_next
end
local remaining = limit - count
local reset = 0
if count > 0 then reset = until_next end
