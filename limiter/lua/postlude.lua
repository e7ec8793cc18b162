
-- Shared tail (appended at build time): metrics, then the compact reply.
if ARGV[3] ~= '' then
  local mkey = ARGV[3] .. ':' .. string.format('%d', math.floor(now / 1000000))
  if code == 0 then redis.call('HINCRBY', mkey, 'a', 1) else redis.call('HINCRBY', mkey, 'd', 1) end
  redis.call('EXPIRE', mkey, 120)
end
return {code, remaining, wait, reset}
