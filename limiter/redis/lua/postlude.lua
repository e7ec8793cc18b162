
-- Shared tail (appended at build time): the compact reply: 32 bytes,
-- struct.pack('<dddd', code, remaining, wait µs, reset µs), four little-endian doubles (all
-- integers below 2^53, so exact). A Lua table would cost Redis ~10% more CPU per call to convert.
return struct.pack('<dddd', code, remaining, wait, reset)
