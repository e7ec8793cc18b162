#include "limiter/engine/plantable.h"

#include "limiter/engine/keyhash.h"

#include <cstring>

namespace qs::limiter {

namespace {
// Any constant would do: the operator writes the map, so its values are not chosen against
// the table, and the seed needs no secret.
constexpr std::uint64_t kSeed = 0x51a7ab1e5eedULL;
constexpr unsigned kFirstSlotsLog2 = 4;

std::uint64_t load8(const char *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// Whether n bytes are equal, by 8-byte loads (the last overlapping the one before), the way
// keyhash.h reads a key: a call to memcmp with its length-dependent branches costs as much as
// the rest of a lookup. Only `b`'s first n bytes are read; `a` may be read up to 8 bytes past
// (the table's text ends with 8 spare bytes).
bool sameBytes(const char *a, const char *b, std::size_t n)
{
    if (n < 8) {
        std::uint64_t x = 0, y = 0;
        std::memcpy(&x, a, n);
        std::memcpy(&y, b, n);
        return x == y;
    }
    for (std::size_t i = 0; i + 8 < n; i += 8)
        if (load8(a + i) != load8(b + i))
            return false;
    return load8(a + n - 8) == load8(b + n - 8);
}
} // namespace

PlanTable::PlanTable()
    : m_slots(std::size_t(1) << kFirstSlotsLog2), m_text(8, '\0'), m_shift(64 - kFirstSlotsLog2)
{
}

PlanTable::Plan PlanTable::find(std::string_view value) const
{
    const std::uint64_t hash = detail::hashKey(value, kSeed);
    const auto tag = std::uint8_t(hash);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = home(hash);; i = (i + 1) & mask) {
        const Slot &s = m_slots[i];
        if (s.length == 0)
            return kNoPlan;
        if (s.tag == tag && s.length == value.size()
            && sameBytes(m_text.data() + s.offset, value.data(), value.size()))
            return s.plan;
    }
}

bool PlanTable::insert(std::string_view value, Plan plan)
{
    if (value.empty() || value.size() > kMaxValueLength || plan == kNoPlan
        || m_text.size() + value.size() > 0xffffffffu || find(value) != kNoPlan)
        return false;
    if (2 * (m_size + 1) > m_slots.size())
        grow();
    const std::uint64_t hash = detail::hashKey(value, kSeed);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = home(hash);
    while (m_slots[i].length != 0)
        i = (i + 1) & mask;
    // The text keeps 8 spare bytes at its end (sameBytes reads that far past a value).
    m_slots[i] = Slot{
        std::uint32_t(m_text.size() - 8), std::uint16_t(value.size()), std::uint8_t(hash), plan};
    m_text.insert(m_text.size() - 8, value);
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
        if (s.length == 0)
            continue;
        std::size_t i
            = home(detail::hashKey(std::string_view(m_text.data() + s.offset, s.length), kSeed));
        while (m_slots[i].length != 0)
            i = (i + 1) & mask;
        m_slots[i] = s;
    }
}

} // namespace qs::limiter
