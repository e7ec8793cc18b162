-- GCRA. ARGV[2] interval µs (rounded up by the caller), ARGV[3] burst.
-- The arithmetic follows in virtual_schedule.lua (appended at build time).
local interval, slots, shape = p1, p2, 0
