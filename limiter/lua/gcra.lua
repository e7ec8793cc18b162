-- GCRA. ARGV[4] interval µs (rounded up by the caller), ARGV[5] burst.
-- The arithmetic follows in virtual_schedule.lua (appended at build time).
local interval, slots, shape = p1, p2, 0
