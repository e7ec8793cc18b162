-- Shared head of every Quota Studio script (prepended at build time). Straight-line code on
-- purpose: a `local function` is a new closure on every call, which measurably slows a script
-- that runs hundreds of thousands of times a second.
-- KEYS[1]: the state key.  ARGV[1]: cost.  ARGV[2 .. 1 + nparams]: the algorithm's parameters
-- (nparams is set above this file at build time).  Then, optional: now in µs ('' or absent:
-- Redis TIME), and a calendar fixed window's windows (fixed_window.lua). The common call
-- (Redis' clock, no calendar) sends no placeholder argument: each costs Redis ~1.5% of a call. The script touches KEYS[1] and nothing else, so that Redis Cluster can route
-- it; per-route metrics are counted by the caller (docs/redis-layout.md).
-- Reply (postlude.lua): code, remaining, wait_us, reset_after_us packed as four doubles; code 0
-- admitted (wait_us = shaping delay), 1 limit exceeded (wait_us = retry after), 2 the cost
-- exceeds what the limit can ever admit. States are packed doubles too (docs/redis-layout.md).
local key = KEYS[1]
local now_arg = ARGV[nparams + 2]
local calendar_arg = ARGV[nparams + 3]
local explicit_now = now_arg ~= nil and now_arg ~= ''
local now
if explicit_now then
  now = tonumber(now_arg)
else
  local t = redis.call('TIME')
  now = t[1] * 1000000 + t[2]
end
local cost = tonumber(ARGV[1])
local p1, p2, p3 = tonumber(ARGV[2]), tonumber(ARGV[3]), nil
if nparams == 3 then p3 = tonumber(ARGV[4]) end
if not now or not cost or cost < 0 or cost % 1 ~= 0 or not p1 or not p2 or p1 < 0 or p2 < 0
   or p1 > 4e15 or p2 > 4e15 or (nparams == 3 and not (p3 and p3 >= 0 and p3 <= 4e15)) then
  return redis.error_reply('QS bad parameter: cost, parameters and now must be numbers >= 0, '
    .. 'got ' .. table.concat(ARGV, ' '))
end
-- TTLs: the key lives until its state equals a fresh one (ms, rounded up). With an explicit now
-- (tests, simulation) Redis' own clock runs at another pace: a second of margin.
-- State and TTL are written with PSETEX key ms value, the TTL passed as string.format('%d'):
-- Redis turns a Lua number argument into text with a "%.17g" printf, and SET's option parser
-- costs more than PSETEX, which Redis documents as deprecated in
-- favour of SET PX but keeps (it has never removed a command). Together ~6% of Redis' CPU per
-- gcra call, measured (docs/benchmarks.md).
local ttl_margin = 0
if explicit_now then ttl_margin = 1000 end
-- What the algorithm writes, set by it and written by the postlude: the decision is made before
-- anything is written, so that several.lua can decide several limits and write only when all
-- of them admit. w_px/w_val: PSETEX key w_px w_val. w_zadd: ZADD key unpack(w_zadd).
-- w_pexpire: PEXPIRE key w_pexpire.
local w_px, w_val, w_zadd, w_pexpire
