#pragma once
// Which plan a client is on, from a value of its request (an API key): the table a policy's
// `plans: { from: { key: …, map: plans.map } }` file becomes. Read on every decision of a planned
// route, so a lookup is one hash of the value, one 8-byte slot (open addressing, at most half
// full) and a comparison with the value's bytes, which lie in one string beside the slots.
// Built once, then only read: lookups from many threads need no lock.
//
// Measured against two other layouts (tests/bench/limiter_bench.cpp, BM_EngineWithPlans, and
// docs/benchmarks.md): slots holding each value's first 24 bytes save the second access but take
// four times the memory, which evicts the engine's own tables; 64-byte buckets of packed values
// take little memory but scanning them costs more than the access they save.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace qs::limiter {

class PlanTable {
public:
    using Plan = std::uint8_t;
    static constexpr Plan kNoPlan = 0xff; // the value is not in the table
    static constexpr std::size_t kMaxValueLength = 0xffff;

    PlanTable();

    // False when the value is already there (the table keeps its first plan), empty or too long.
    bool insert(std::string_view value, Plan plan);
    Plan find(std::string_view value) const;
    std::size_t size() const { return m_size; }

private:
    struct Slot {
        std::uint32_t offset = 0; // into m_text
        std::uint16_t length = 0; // 0: an empty slot
        std::uint8_t tag = 0; // 8 bits of the hash, compared before the bytes
        Plan plan = kNoPlan;
    };

    std::size_t home(std::uint64_t hash) const { return std::size_t(hash >> m_shift); }
    void grow();

    std::vector<Slot> m_slots;
    std::string m_text;
    std::size_t m_size = 0;
    unsigned m_shift = 0; // 64 - log2(slot count)
};

} // namespace qs::limiter
