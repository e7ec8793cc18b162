
-- Shared tail (appended at build time): the compact reply: 32 bytes,
-- struct.pack('<dddd', code, remaining, wait µs, reset µs), four little-endian doubles (all
-- integers below 2^53, so exact). A Lua table would cost Redis ~10% more CPU per call to convert.
if w_val then redis.call('PSETEX', key, w_px, w_val) end
if w_zadd then redis.call('ZADD', key, unpack(w_zadd)) end
if w_pexpire then redis.call('PEXPIRE', key, w_pexpire) end
return struct.pack('<dddd', code, remaining, wait, reset)
