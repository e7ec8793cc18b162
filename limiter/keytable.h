#pragma once
// Open-addressing hash table from key bytes to one algorithm state; single-threaded (the engine
// locks around it). Built for memory per key and for few cache misses per lookup:
//  - a slot is {16-bit hash tag, key length, 20 key bytes, state}: 40 bytes for a 16-byte state.
//    Keys up to 20 bytes (IPv4 addresses, most client ids) sit inside the slot, so a lookup
//    touches one cache line; longer keys keep a 4-byte offset into the table's key arena;
//  - no separate control array: the tag in the slot filters probes;
//  - capacity grows by 1.5x with the load kept between 0.53 and 0.8, and any slot-count is
//    allowed (the index is a multiply-shift "fast range", not a power-of-two mask).
// Nothing is erased in place, so there are no tombstones: eviction happens while rebuilding,
// which is also when the arena drops the characters of evicted keys.
//
// prefetch() may be called WITHOUT the lock: it reads only the published slot pointer and
// count (atomics) and issues a cache hint, which never faults even on memory since freed. The
// engine issues it before taking the shard lock, so the slot's cache miss overlaps with the
// lock and with the previous request's tail instead of following them.
#include <algorithm>
#include <atomic>
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
    static constexpr std::size_t kInlineKey = 20;

    KeyTable() = default;
    KeyTable(KeyTable &&other) noexcept { *this = std::move(other); }
    KeyTable &operator=(KeyTable &&other) noexcept
    {
        m_slots = std::move(other.m_slots);
        m_arena = std::move(other.m_arena);
        m_size = std::exchange(other.m_size, 0);
        publish();
        other.publish();
        return *this;
    }

    std::size_t size() const { return m_size; }

    // Heap bytes held, by allocation size (vector capacities), not by contents.
    std::size_t bytes() const { return m_slots.capacity() * sizeof(Slot) + m_arena.capacity(); }

    void prefetch(std::uint64_t hash) const
    {
        const std::size_t count = m_publishedCount.load(std::memory_order_relaxed);
        const Slot *slots = m_publishedSlots.load(std::memory_order_relaxed);
        if (count != 0)
            __builtin_prefetch(slots + home(hash, count));
    }

    State *find(std::uint64_t hash, std::string_view key)
    {
        if (m_slots.empty())
            return nullptr;
        const std::uint16_t tag = tagOf(hash);
        for (std::size_t i = home(hash, m_slots.size());; i = next(i)) {
            Slot &slot = m_slots[i];
            if (slot.tag == 0)
                return nullptr;
            if (slot.tag == tag && keyAt(slot) == key)
                return &slot.state;
        }
    }

    // The key must be absent and hasRoomForOne() true.
    State *insert(std::uint64_t hash, std::string_view key)
    {
        std::size_t i = home(hash, m_slots.size());
        while (m_slots[i].tag != 0)
            i = next(i);
        Slot &slot = m_slots[i];
        slot.tag = tagOf(hash);
        slot.keyLength = std::uint16_t(key.size());
        if (key.size() <= kInlineKey) {
            std::memcpy(slot.key, key.data(), key.size());
        } else {
            const std::uint32_t offset = appendKey(key);
            std::memcpy(slot.key, &offset, sizeof offset);
        }
        slot.state = State{};
        ++m_size;
        return &slot.state;
    }

    bool hasRoomForOne() const { return (m_size + 1) * 5 <= m_slots.size() * 4; }

    // Rebuilds with only the entries keep(state) accepts, sized so that the load is ~0.53:
    // room for ~50% more keys before the next rebuild. Returns how many were dropped.
    template <class Keep, class Hash>
    std::size_t rebuild(Keep &&keep, Hash &&hashOf)
    {
        std::size_t survivors = 0;
        std::size_t longKeyBytes = 0;
        forEach([&](std::string_view key, const State &s) {
            if (keep(s)) {
                ++survivors;
                longKeyBytes += key.size() > kInlineKey ? key.size() : 0;
            }
        });
        KeyTable fresh;
        fresh.m_slots.resize(std::max<std::size_t>(16, (survivors + 1) * 15 / 8));
        fresh.m_arena.reserve(longKeyBytes + longKeyBytes / 2);
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
        for (Slot &slot : m_slots)
            if (slot.tag != 0)
                f(keyAt(slot), slot.state);
    }

private:
    struct Slot {
        std::uint16_t tag = 0; // 0: empty
        std::uint16_t keyLength = 0;
        char key[kInlineKey] = {}; // the key itself, or a uint32 offset into the arena
        State state{};
    };

    // 15 low bits of the hash, never 0: a false match costs a key compare 1 time in 32768.
    static std::uint16_t tagOf(std::uint64_t hash)
    {
        return std::uint16_t(0x8000 | (hash & 0x7fff));
    }

    // Bits 6..63 (the top 6 pick the engine's shard), mapped onto [0, count) without a modulo.
    static std::size_t home(std::uint64_t hash, std::size_t count)
    {
        return std::size_t(Uint128(hash << 6) * count >> 64);
    }
    std::size_t next(std::size_t i) const { return i + 1 == m_slots.size() ? 0 : i + 1; }

    std::string_view keyAt(const Slot &s) const
    {
        if (s.keyLength <= kInlineKey)
            return {s.key, s.keyLength};
        std::uint32_t offset;
        std::memcpy(&offset, s.key, sizeof offset);
        return {m_arena.data() + offset, s.keyLength};
    }

    std::uint32_t appendKey(std::string_view key)
    {
        const std::size_t offset = m_arena.size();
        if (offset + key.size() > m_arena.capacity())
            m_arena.reserve(std::max(offset + key.size(), m_arena.capacity() * 3 / 2 + 64));
        m_arena.insert(m_arena.end(), key.begin(), key.end());
        return std::uint32_t(offset);
    }

    void publish()
    {
        m_publishedSlots.store(m_slots.data(), std::memory_order_relaxed);
        m_publishedCount.store(m_slots.size(), std::memory_order_relaxed);
    }

    std::vector<Slot> m_slots;
    std::vector<char> m_arena;
    std::size_t m_size = 0;
    std::atomic<const Slot *> m_publishedSlots{nullptr};
    std::atomic<std::size_t> m_publishedCount{0};
};

} // namespace qs::limiter::detail
