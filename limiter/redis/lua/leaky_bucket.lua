-- Leaky bucket. ARGV[2] interval µs (rounded up), ARGV[3] queue, ARGV[4] 1 for shape, 0 police.
-- Admission is GCRA's with queue + 1 slots (one in service); virtual_schedule.lua follows
-- (appended at build time). In shape mode an admitted request's wait is its departure delay.
local interval, slots, shape = p1, p2 + 1, p3
