-- Gives back what an earlier several.lua call in 'images' mode wrote, when a request's limits
-- are in several Redis Cluster slots and a later slot denied the request (RedisBackend::
-- acquireAll). KEYS[i]: a state key of one slot. ARGV, seven per key: the algorithm, its first
-- two parameters (as several.lua takes them), the cost, then from that call's reply the value
-- before ('' when absent or a sorted set), its absolute expiry in ms (-1 none, -2 absent), and
-- what was written ('' when nothing; for a sorted set, the score of the entries it added).
--   - Unchanged since the call: the value before goes back, with its expiry. Exact.
--   - Written by another request in between: the units are taken off arithmetically, keeping
--     the other requests' charges: a window's count (exact: counts commute), a sliding log's
--     entries at the written µs (exact: entries at one µs are interchangeable, so the highest
--     sequence numbers go), a token bucket's tokens (capped at its capacity) or a schedule's
--     time (one interval per unit). For the last two, a bucket that refilled to full while the
--     charge was held can come out up to `cost` units fuller than had the request never been
--     charged: the over-admission bound in docs/redis-layout.md.
-- Reply: per key 1 restored, 2 taken off arithmetically, 0 nothing to give back (nothing was
-- written, the window has moved on, or the key is gone).
local n = #KEYS
if #ARGV ~= 7 * n then
  return redis.error_reply('QS bad parameter: a give-back takes 7 arguments per key, got '
    .. #ARGV .. ' for ' .. n .. ' keys')
end
local t = redis.call('TIME')
local server_ms = t[1] * 1000 + math.floor(t[2] / 1000)
local out = {}
for i = 1, n do
  local key, b = KEYS[i], 7 * (i - 1)
  local alg, p1, p2, cost = ARGV[b + 1], tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]),
    tonumber(ARGV[b + 4])
  local was, at, written = ARGV[b + 5], tonumber(ARGV[b + 6]), ARGV[b + 7]
  local result = 0
  if written == '' or not cost or not p1 or not p2 then
    result = 0
  elseif alg == 'sliding_window_log' then
    local seqs = {}
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', key, written, written)) do
      local seq = tonumber(string.match(m, ':(%d+)$'))
      if seq then seqs[#seqs + 1] = {seq, m} end
    end
    table.sort(seqs, function(x, y) return x[1] > y[1] end)
    for j = 1, math.min(cost, #seqs) do redis.call('ZREM', key, seqs[j][2]) end
    if #seqs > 0 then result = 1 end
  else
    local now = redis.call('GET', key)
    if now == written then
      if was == '' then
        redis.call('DEL', key)
      elseif at == -1 then
        redis.call('SET', key, was)
      elseif at - server_ms >= 1 then
        redis.call('SET', key, was, 'PX', string.format('%d', at - server_ms))
      else
        redis.call('DEL', key) -- the value before would have expired by now
      end
      result = 1
    elseif now then
      local value
      if alg == 'fixed_window' and #now == 16 and #written == 16 then
        local start, count = struct.unpack('<dd', now)
        if start == struct.unpack('<dd', written) then
          value = struct.pack('<dd', start, math.max(0, count - cost))
        end
      elseif alg == 'sliding_window_counter' and #now == 24 and #written == 24 then
        local start, cur, prev = struct.unpack('<ddd', now)
        local charged = struct.unpack('<ddd', written)
        if start == charged then
          value = struct.pack('<ddd', start, math.max(0, cur - cost), prev)
        elseif start == charged + p2 then -- the charge is the previous window's now
          value = struct.pack('<ddd', start, cur, math.max(0, prev - cost))
        end
      elseif alg == 'token_bucket' and #now == 16 then
        local tokens, updated = struct.unpack('<dd', now)
        value = struct.pack('<dd', math.min(p1, tokens + cost), updated)
      elseif (alg == 'gcra' or alg == 'leaky_bucket') and #now == 8 then
        value = struct.pack('<d', struct.unpack('<d', now) - cost * p1)
      end
      if value then
        redis.call('SET', key, value, 'KEEPTTL')
        result = 2
      end
    end
  end
  out[i] = result
end
return out
