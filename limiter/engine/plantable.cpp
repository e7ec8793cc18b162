#include "limiter/engine/plantable.h"

#include "limiter/engine/keyhash.h"

#include <cstring>

namespace qs::limiter {

namespace {
// Any constant would do: the table is not exposed to values chosen against it (the operator
// writes the map), so the seed needs no secret.
constexpr std::uint64_t kSeed = 0x51a7ab1e5eedULL;
constexpr std::size_t kFirstSlots = 16;
} // namespace

PlanTable::PlanTable() : m_slots(kFirstSlots), m_shift(64 - 4) { }

PlanTable::Plan PlanTable::find(std::string_view value) const
{
    const std::uint64_t hash = detail::hashKey(value, kSeed);
    const auto tag = std::uint8_t(hash);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = home(hash);; i = (i + 1) & mask) {
        const Slot &s = m_slots[i];
        if (s.offset == kEmpty)
            return kNoPlan;
        if (s.tag == tag && s.length == value.size()
            && std::memcmp(m_text.data() + s.offset, value.data(), value.size()) == 0)
            return s.plan;
    }
}

bool PlanTable::insert(std::string_view value, Plan plan)
{
    if (value.size() > kMaxValueLength || plan == kNoPlan || m_text.size() + value.size() >= kEmpty)
        return false;
    if (find(value) != kNoPlan)
        return false;
    if (2 * (m_size + 1) > m_slots.size())
        grow();
    const std::uint64_t hash = detail::hashKey(value, kSeed);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = home(hash);
    while (m_slots[i].offset != kEmpty)
        i = (i + 1) & mask;
    m_slots[i]
        = Slot{std::uint32_t(m_text.size()), std::uint16_t(value.size()), std::uint8_t(hash), plan};
    m_text.append(value);
    ++m_size;
    return true;
}

void PlanTable::grow()
{
    std::vector<Slot> old(m_slots.size() * 2);
    old.swap(m_slots);
    --m_shift;
    const std::size_t mask = m_slots.size() - 1;
    for (const Slot &s : old) {
        if (s.offset == kEmpty)
            continue;
        const std::uint64_t hash
            = detail::hashKey(std::string_view(m_text.data() + s.offset, s.length), kSeed);
        std::size_t i = home(hash);
        while (m_slots[i].offset != kEmpty)
            i = (i + 1) & mask;
        m_slots[i] = s;
    }
}

} // namespace qs::limiter
