#pragma once
// Open-addressing hash table from key bytes to one algorithm state; single-threaded (the engine
// locks around it). Built for memory per key:
//  - slots hold only {key offset, key length, state}: 24 bytes for a 16-byte state;
//  - one control byte per slot (empty, or a 7-bit tag of the hash) filters probes cheaply;
//  - key characters live in one arena per table, not in a heap block each;
//  - capacity grows by 1.5x with the load kept between 0.53 and 0.8, and any slot-count is
//    allowed (the index is a multiply-shift "fast range", not a power-of-two mask).
// Nothing is erased in place, so there are no tombstones: eviction happens while rebuilding,
// which is also when the arena drops the characters of evicted keys.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace qs::limiter::detail {

__extension__ typedef unsigned __int128 Uint128; // GCC/Clang; -Wpedantic knows no __int128

template <class State>
class KeyTable {
public:
    static constexpr std::size_t kMaxKeyLength = 0xffff;

    std::size_t size() const { return m_size; }

    // Heap bytes held, by allocation size (vector capacities), not by contents.
    std::size_t bytes() const
    {
        return m_ctrl.capacity() + m_slots.capacity() * sizeof(Slot) + m_arena.capacity();
    }

    State *find(std::uint64_t hash, std::string_view key)
    {
        if (m_slots.empty())
            return nullptr;
        const std::uint8_t tag = tagOf(hash);
        for (std::size_t i = home(hash);; i = next(i)) {
            const std::uint8_t c = m_ctrl[i];
            if (c == 0)
                return nullptr;
            if (c == tag && keyAt(m_slots[i]) == key)
                return &m_slots[i].state;
        }
    }

    // The key must be absent and hasRoomForOne() true.
    State *insert(std::uint64_t hash, std::string_view key)
    {
        std::size_t i = home(hash);
        while (m_ctrl[i] != 0)
            i = next(i);
        m_ctrl[i] = tagOf(hash);
        m_slots[i] = Slot {appendKey(key), std::uint32_t(key.size()), State {}};
        ++m_size;
        return &m_slots[i].state;
    }

    bool hasRoomForOne() const { return (m_size + 1) * 5 <= m_slots.size() * 4; }

    // Rebuilds with only the entries keep(state) accepts, sized so that the load is ~0.53:
    // room for ~50% more keys before the next rebuild. Returns how many were dropped.
    template <class Keep, class Hash>
    std::size_t rebuild(Keep &&keep, Hash &&hashOf)
    {
        std::size_t survivors = 0;
        forEach([&](std::string_view, const State &s) { survivors += keep(s) ? 1 : 0; });
        KeyTable fresh;
        fresh.allocate(std::max<std::size_t>(16, (survivors + 1) * 15 / 8), arenaBytesFor(keep));
        forEach([&](std::string_view key, State &s) {
            if (keep(s))
                *fresh.insert(hashOf(key), key) = std::move(s);
        });
        const std::size_t dropped = m_size - survivors;
        *this = std::move(fresh);
        return dropped;
    }

    template <class F>
    void forEach(F &&f)
    {
        for (std::size_t i = 0; i < m_slots.size(); ++i)
            if (m_ctrl[i] != 0)
                f(keyAt(m_slots[i]), m_slots[i].state);
    }

private:
    struct Slot {
        std::uint32_t keyOffset = 0;
        std::uint32_t keyLength = 0;
        State state {};
    };

    static std::uint8_t tagOf(std::uint64_t hash) { return std::uint8_t(0x80 | (hash & 0x7f)); }

    // Bits 6..63 (the top 6 pick the engine's shard), mapped onto [0, size) without a modulo.
    std::size_t home(std::uint64_t hash) const
    {
        return std::size_t(Uint128(hash << 6) * m_slots.size() >> 64);
    }
    std::size_t next(std::size_t i) const { return i + 1 == m_slots.size() ? 0 : i + 1; }

    std::string_view keyAt(const Slot &s) const
    {
        return {m_arena.data() + s.keyOffset, s.keyLength};
    }

    std::uint32_t appendKey(std::string_view key)
    {
        const std::size_t offset = m_arena.size();
        if (offset + key.size() > m_arena.capacity())
            m_arena.reserve(std::max(offset + key.size(), m_arena.capacity() * 3 / 2 + 64));
        m_arena.insert(m_arena.end(), key.begin(), key.end());
        return std::uint32_t(offset);
    }

    template <class Keep>
    std::size_t arenaBytesFor(Keep &&keep)
    {
        std::size_t n = 0;
        forEach([&](std::string_view key, const State &s) { n += keep(s) ? key.size() : 0; });
        return n + n / 2;
    }

    void allocate(std::size_t slots, std::size_t arenaBytes)
    {
        m_ctrl.assign(slots, 0);
        m_slots.resize(slots);
        m_arena.reserve(arenaBytes);
    }

    std::vector<std::uint8_t> m_ctrl;
    std::vector<Slot> m_slots;
    std::vector<char> m_arena;
    std::size_t m_size = 0;
};

} // namespace qs::limiter::detail
