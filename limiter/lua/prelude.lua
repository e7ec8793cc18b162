-- Shared head of every Quota Studio script (prepended at build time). Straight-line code on
-- purpose: a `local function` is a new closure on every call, which measurably slows a script
-- that runs hundreds of thousands of times a second.
-- KEYS[1]: the state key.  ARGV[1]: now in µs, or '' for Redis TIME.  ARGV[2]: cost.
-- ARGV[3]: metrics key prefix, or '' when metrics are off.  ARGV[4..]: the algorithm's parameters.
-- Reply: {code, remaining, wait_us, reset_after_us}; code 0 admitted (wait_us = shaping delay),
-- 1 limit exceeded (wait_us = retry after), 2 the cost exceeds what the limit can ever admit.
-- Numbers in state are written with string.format: Lua's tostring keeps only 14 digits.
local key = KEYS[1]
local explicit_now = ARGV[1] ~= ''
local now
if explicit_now then
  now = tonumber(ARGV[1])
else
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
end
local cost = tonumber(ARGV[2])
local p1, p2, p3 = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
if not now or not cost or cost < 0 or cost % 1 ~= 0 or not p1 or not p2 or p1 < 0 or p2 < 0
   or p1 > 4e15 or p2 > 4e15 or (p3 and (p3 < 0 or p3 > 4e15)) then
  return redis.error_reply('QS bad parameter: now, cost and parameters must be numbers >= 0, got '
    .. table.concat(ARGV, ' ', 1, 2) .. ' ' .. table.concat(ARGV, ' ', 4))
end
-- TTLs: the key lives until its state equals a fresh one (ms, rounded up). With an explicit now
-- (tests, simulation) Redis' own clock runs at another pace: a second of margin.
local ttl_margin = 0
if explicit_now then ttl_margin = 1000 end
