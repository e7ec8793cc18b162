  replies[#replies + 1] = r_code
  replies[#replies + 1] = r_remaining
  replies[#replies + 1] = r_wait
  replies[#replies + 1] = r_reset
  if r_code ~= 0 and not shadow then admitted = false end
  -- Flat arrays, not a table per limit: a table per call and limit cost Redis measurably.
  wpx[i], wval[i], wzadd[i], wpexpire[i] = w_px, w_val, w_zadd, w_pexpire
end
if mode == 'dry' then admitted = false end
if admitted then
  for i = 1, n do
    if wval[i] then redis.call('PSETEX', KEYS[i], wpx[i], wval[i]) end
    if wzadd[i] then redis.call('ZADD', KEYS[i], unpack(wzadd[i])) end
    if wpexpire[i] then redis.call('PEXPIRE', KEYS[i], wpexpire[i]) end
  end
end
local packed = struct.pack('<' .. string.rep('d', #replies), unpack(replies))
if mode ~= 'images' then return packed end
local out = {packed}
for i = 1, n do
  local written = ''
  if admitted and wval[i] then written = wval[i] end
  if admitted and wzadd[i] then written = wzadd[i][1] end
  out[#out + 1] = before[i]
  out[#out + 1] = before_at[i]
  out[#out + 1] = written
end
return out
