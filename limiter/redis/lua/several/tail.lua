  replies[#replies + 1] = r_code
  replies[#replies + 1] = r_remaining
  replies[#replies + 1] = r_wait
  replies[#replies + 1] = r_reset
  if r_code ~= 0 and not shadow then admitted = false end
  writes[i] = {w_px, w_val, w_zadd, w_pexpire}
end
if admitted then
  for i = 1, n do
    local w = writes[i]
    if w[2] then redis.call('PSETEX', KEYS[i], w[1], w[2]) end
    if w[3] then redis.call('ZADD', KEYS[i], unpack(w[3])) end
    if w[4] then redis.call('PEXPIRE', KEYS[i], w[4]) end
  end
end
return struct.pack('<' .. string.rep('d', #replies), unpack(replies))
