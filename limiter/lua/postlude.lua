
-- Shared tail (appended at build time): metrics, then the compact reply: 32 bytes,
-- struct.pack('<dddd', code, remaining, wait µs, reset µs), four little-endian doubles (all
-- integers below 2^53, so exact). A Lua table would cost Redis ~10% more CPU per call to convert.
if metrics and metrics ~= '' then
  local mkey = metrics .. ':' .. string.format('%d', math.floor(now / 1000000))
  if code == 0 then redis.call('HINCRBY', mkey, 'a', 1) else redis.call('HINCRBY', mkey, 'd', 1) end
  redis.call('EXPIRE', mkey, '120')
end
return struct.pack('<dddd', code, remaining, wait, reset)
