-- Fixed window aligned to the epoch. ARGV[2] limit, ARGV[3] window µs.
-- Or a calendar window (limiter/calendar/): Lua knows no time zones, so the caller sends the
-- window that holds its clock's now and the next one as calendar_arg, "b0 b1 b2" (µs, windows
-- [b0, b1) and [b1, b2)); Redis' now picks one. Its now before b0 (a caller's clock ahead)
-- counts in [b0, b1); after b2 (a clock a whole window off) is an error.
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
local start, stop
if calendar_arg and calendar_arg ~= '' then
  local b0, b1, b2 = string.match(calendar_arg, '^(%d+) (%d+) (%d+)$')
  b0, b1, b2 = tonumber(b0), tonumber(b1), tonumber(b2)
  if not b2 or not (b0 < b1 and b1 < b2) then
    return redis.error_reply('QS bad parameter: calendar windows are "b0 b1 b2" in µs, '
      .. 'increasing, got ' .. calendar_arg)
  end
  if t < b1 then
    start, stop = b0, b1
  elseif t < b2 then
    start, stop = b1, b2
  else
    return redis.error_reply('QS calendar windows ' .. calendar_arg .. ' end before Redis time '
      .. string.format('%d', t) .. ': the caller\'s clock is a window behind')
  end
else
  start = t - (t % window)
  stop = start + window
end
local count = 0
if start_stored == start then count = count_stored end
local until_next = stop - now
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
