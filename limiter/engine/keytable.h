#pragma once
// Open-addressing hash table from key bytes to one algorithm state. Built for memory per key,
// few cache misses per lookup, and lookups that run concurrently with inserts:
//  - a slot is {16-bit hash tag, key length, 19 key bytes, lock byte, state}: 40 bytes for a
//    16-byte state. Keys up to 19 bytes (IPv4 addresses, most client ids) sit inside the slot,
//    so a lookup touches one cache line; longer keys keep a 4-byte offset into the key arena;
//  - no separate control array: the tag in the slot filters probes;
//  - small tables give each slot a pair of cache lines, large ones pack them (slotarray.h);
//    small ones also keep the tags in an array of their own, so that probes read no slot lines;
//    large ones keep a filter (8 bits per slot) that says, without reading a slot, that a key
//    is not here: the engine asks it before looking in another thread's lane (ruletable.h);
//  - capacity grows by 1.5x with the load kept between 0.53 and 0.8 (packed; 0.25-0.375
//    padded), and any slot count is allowed (the index is a multiply-shift "fast range", not a
//    power-of-two mask).
// Nothing is erased in place, so there are no tombstones: eviction happens while rebuilding,
// which is also when the arena drops the characters of evicted keys.
//
// Concurrency contract (the engine's RuleTable keeps it):
//  - find(), mayContain() and the slot lock may run in any number of threads at once, and
//    alongside one insert(): insert() fills a free slot and publishes it by storing its tag
//    (release), then sets its filter bit (release); find() reads tags and mayContain() filter
//    words with acquire, so a reader sees a slot either empty or complete, and a key whose
//    filter bit it sees, findable;
//  - insert() calls are serialised by the caller; needsRebuild() tells when the next insert
//    would have to move memory (slot array full, or key arena full);
//  - rebuild() replaces the slot array and the arena: the caller guarantees no find() runs;
//  - a slot's state is read or written only while its lock is held.
// prefetch() may run without any guarantee: it reads the published slot pointer and count
// (atomics) and issues a cache hint, which never faults, even on memory since freed.
#include "limiter/engine/slotarray.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <thread>
#include <utility>

namespace qs::limiter::detail {

__extension__ typedef unsigned __int128 Uint128; // GCC/Clang; -Wpedantic knows no __int128

template <class State>
class KeyTable {
public:
    // What a slot's 16-bit key length can say (Engine::kMaxKeyLength is the promise).
    static constexpr std::size_t kMaxKeyLength = std::numeric_limits<std::uint16_t>::max();
    static constexpr std::size_t kInlineKey = 19;
    // Tables up to this many slot bytes (per shard) give each slot a 128-byte pair of cache
    // lines (slotarray.h says why) and keep their load between 0.25 and 0.375, so that a probe
    // rarely reads another key's line: 128 slots, at most 1 MB for the 64 shards of one lane of
    // a rule (an L2 cache), reached at about 3000 keys. Larger tables pack their slots.
    static constexpr std::size_t kPaddedBytes = 128 * kLinePair;

    class Slot {
    public:
        State state{};

        void lock()
        {
            std::atomic_ref<std::uint8_t> l(m_lock);
            for (int spins = 0;; ++spins) {
                std::uint8_t expected = 0;
                if (l.compare_exchange_weak(
                        expected, 1, std::memory_order_acquire, std::memory_order_relaxed))
                    return;
                if (spins > 64)
                    std::this_thread::yield();
            }
        }
        void unlock() { std::atomic_ref<std::uint8_t>(m_lock).store(0, std::memory_order_release); }

    private:
        friend class KeyTable;
        std::uint16_t m_tag = 0; // 0: empty; written with release, read with acquire
        std::uint16_t m_keyLength = 0;
        char m_key[kInlineKey] = {}; // the key itself, or a uint32 offset into the arena
        std::uint8_t m_lock = 0;
    };

    KeyTable() = default;
    KeyTable(KeyTable &&other) noexcept { *this = std::move(other); }
    KeyTable &operator=(KeyTable &&other) noexcept
    {
        m_slots = std::move(other.m_slots);
        m_tags = std::move(other.m_tags);
        m_filter = std::move(other.m_filter);
        m_filterBits = std::exchange(other.m_filterBits, 0);
        m_arena = std::move(other.m_arena);
        m_arenaUsed = std::exchange(other.m_arenaUsed, 0);
        m_arenaCapacity = std::exchange(other.m_arenaCapacity, 0);
        m_size = std::exchange(other.m_size, 0);
        publish();
        other.publish();
        return *this;
    }

    std::size_t size() const { return m_size; }

    // Heap bytes held, by allocation size, not by contents.
    std::size_t bytes() const
    {
        return m_slots.bytes() + (m_tags ? m_slots.size() * sizeof(std::uint16_t) : 0)
            + m_filterBits / 8 + m_arenaCapacity;
    }

    bool padded() const { return m_slots.padded(); }

    void prefetch(std::uint64_t hash) const
    {
        const std::size_t count = m_publishedCount.load(std::memory_order_relaxed);
        std::byte *slots = m_publishedSlots.load(std::memory_order_relaxed);
        const std::size_t stride = m_publishedStride.load(std::memory_order_relaxed);
        // Packed tables only: a padded table is small enough to stay in cache, and its home
        // slot may hold another key, whose line another thread may be writing.
        if (count != 0 && stride == sizeof(Slot)) {
            // Both lines: a packed 40-byte slot straddles a line boundary half of the time.
            const char *slot = reinterpret_cast<const char *>(
                SlotArray<Slot>::at(slots, stride, home(hash, count)));
            __builtin_prefetch(slot);
            __builtin_prefetch(slot + sizeof(Slot) - 1);
        }
    }

    // False when the key is certainly absent, without reading a slot: packed tables keep a
    // filter of 8 bits per slot (one bit per key, false positives ~7-10% at their loads), which
    // lets the engine skip a lane that does not hold a key instead of paying a cache miss to
    // find out. Padded tables, small enough to stay in cache, probe their tag array instead.
    bool mayContain(std::uint64_t hash) const
    {
        if (!m_filter)
            return !m_slots.empty();
        const std::size_t bit = filterBit(hash);
        const std::uint64_t word
            = std::atomic_ref<std::uint64_t>(m_filter[bit / 64]).load(std::memory_order_acquire);
        return (word >> (bit % 64)) & 1;
    }

    Slot *find(std::uint64_t hash, std::string_view key)
    {
        if (m_slots.empty())
            return nullptr;
        const std::uint16_t tag = tagOf(hash);
        for (std::size_t i = home(hash, m_slots.size());; i = next(i)) {
            const std::uint16_t t = probeTag(i);
            if (t == 0)
                return nullptr;
            if (t == tag && holds(m_slots[i], key))
                return &m_slots[i];
        }
    }

    bool needsRebuild(std::string_view key) const
    {
        const bool slotsFull = m_slots.padded() ? (m_size + 1) * 8 > m_slots.size() * 3
                                                : (m_size + 1) * 5 > m_slots.size() * 4;
        const bool arenaFull
            = key.size() > kInlineKey && m_arenaUsed + key.size() > m_arenaCapacity;
        return slotsFull || arenaFull;
    }

    // The key must be absent and needsRebuild(key) false.
    Slot *insert(std::uint64_t hash, std::string_view key)
    {
        std::size_t i = home(hash, m_slots.size());
        while (m_slots[i].m_tag != 0) // only inserts write tags, and they are serialised
            i = next(i);
        Slot &slot = m_slots[i];
        slot.m_keyLength = std::uint16_t(key.size());
        if (key.size() <= kInlineKey) {
            std::memcpy(slot.m_key, key.data(), key.size());
        } else {
            const auto offset = std::uint32_t(m_arenaUsed);
            std::memcpy(m_arena.get() + m_arenaUsed, key.data(), key.size());
            m_arenaUsed += key.size();
            std::memcpy(slot.m_key, &offset, sizeof offset);
        }
        slot.state = State{};
        std::atomic_ref<std::uint16_t>(slot.m_tag).store(tagOf(hash), std::memory_order_release);
        if (m_tags) // last: a reader that finds the tag here finds the slot complete
            std::atomic_ref<std::uint16_t>(m_tags[i]).store(tagOf(hash), std::memory_order_release);
        if (m_filter) { // inserts are serialised: no other writer of this word
            const std::size_t bit = filterBit(hash);
            std::atomic_ref<std::uint64_t> word(m_filter[bit / 64]);
            word.store(word.load(std::memory_order_relaxed) | (std::uint64_t(1) << (bit % 64)),
                std::memory_order_release);
        }
        ++m_size;
        return &slot;
    }

    // Rebuilds with only the entries keep(state) accepts, sized so that the load is ~0.53 (room
    // for ~50% more keys) and the arena has room for `pendingKey` and half as much again.
    // Returns how many entries were dropped.
    template <class Keep, class Hash>
    std::size_t rebuild(Keep &&keep, Hash &&hashOf, std::string_view pendingKey = {})
    {
        std::size_t survivors = 0;
        std::size_t longKeyBytes = pendingKey.size() > kInlineKey ? pendingKey.size() : 0;
        forEach([&](std::string_view key, const State &s) {
            if (keep(s)) {
                ++survivors;
                longKeyBytes += key.size() > kInlineKey ? key.size() : 0;
            }
        });
        KeyTable fresh;
        const std::size_t paddedSlots = std::max<std::size_t>(16, (survivors + 1) * 4);
        const bool padded = paddedSlots * kLinePair <= kPaddedBytes;
        const std::size_t slots
            = padded ? paddedSlots : std::max<std::size_t>(16, (survivors + 1) * 15 / 8);
        fresh.m_slots = SlotArray<Slot>(slots, padded);
        if (padded) {
            fresh.m_tags = std::make_unique<std::uint16_t[]>(slots); // zero: all empty
        } else {
            fresh.m_filterBits = (slots * 8 + 63) / 64 * 64;
            fresh.m_filter = std::make_unique<std::uint64_t[]>(fresh.m_filterBits / 64);
        }
        fresh.m_arenaCapacity = longKeyBytes + longKeyBytes / 2;
        if (fresh.m_arenaCapacity > 0)
            fresh.m_arena = std::make_unique<char[]>(fresh.m_arenaCapacity);
        forEach([&](std::string_view key, State &s) {
            if (keep(s))
                fresh.insert(hashOf(key), key)->state = std::move(s);
        });
        const std::size_t dropped = m_size - survivors;
        *this = std::move(fresh);
        return dropped;
    }

    template <class F>
    void forEach(F &&f)
    {
        for (std::size_t i = 0; i < m_slots.size(); ++i)
            if (Slot &slot = m_slots[i]; slot.m_tag != 0)
                f(keyAt(slot), slot.state);
    }

private:
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
    // Hash bits that neither the home slot (the top bits) nor the tag (the low 15) decide.
    std::size_t filterBit(std::uint64_t hash) const
    {
        const std::uint64_t mixed = (hash << 23) | (hash >> 41);
        return std::size_t(Uint128(mixed) * m_filterBits >> 64);
    }
    std::size_t next(std::size_t i) const { return i + 1 == m_slots.size() ? 0 : i + 1; }

    // The tag of slot i as a lookup reads it (acquire: a set tag means a complete slot). Padded
    // tables read their tag array, which only inserts write, so probing never reads the line of
    // another key's slot (which another thread may be writing); packed tables read the slot,
    // whose line the lookup needs anyway.
    std::uint16_t probeTag(std::size_t i)
    {
        std::uint16_t &t = m_tags ? m_tags[i] : m_slots[i].m_tag;
        return std::atomic_ref<std::uint16_t>(t).load(std::memory_order_acquire);
    }

    bool holds(const Slot &s, std::string_view key) const
    {
        if (s.m_keyLength != key.size())
            return false;
        if (key.size() <= kInlineKey)
            return equalShort(s.m_key, key.data(), key.size());
        return keyAt(s) == key;
    }

    // n <= kInlineKey bytes compared with a few overlapping word loads, in line. Replacing a
    // memcmp call took 36 of 382 instructions off a decision (callgrind), and the count after
    // the slot's cache miss decides how much of the next call's miss overlaps it (ruletable.h).
    static bool equalShort(const char *a, const char *b, std::size_t n)
    {
        static_assert(kInlineKey <= 24, "three 8-byte words cover an inline key");
        const auto differ = [&](std::size_t at, auto word) {
            decltype(word) x, y;
            std::memcpy(&x, a + at, sizeof x);
            std::memcpy(&y, b + at, sizeof y);
            return x ^ y;
        };
        if (n >= 8) {
            std::uint64_t diff = differ(0, std::uint64_t{}) | differ(n - 8, std::uint64_t{});
            if (n > 16)
                diff |= differ(8, std::uint64_t{});
            return diff == 0;
        }
        if (n >= 4)
            return (differ(0, std::uint32_t{}) | differ(n - 4, std::uint32_t{})) == 0;
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i])
                return false;
        return true;
    }

    std::string_view keyAt(const Slot &s) const
    {
        if (s.m_keyLength <= kInlineKey)
            return {s.m_key, s.m_keyLength};
        std::uint32_t offset;
        std::memcpy(&offset, s.m_key, sizeof offset);
        return {m_arena.get() + offset, s.m_keyLength};
    }

    void publish()
    {
        m_publishedSlots.store(m_slots.data(), std::memory_order_relaxed);
        m_publishedStride.store(m_slots.stride(), std::memory_order_relaxed);
        m_publishedCount.store(m_slots.size(), std::memory_order_relaxed);
    }

    SlotArray<Slot> m_slots;
    std::unique_ptr<std::uint16_t[]> m_tags; // padded tables only: the slots' tags, by index
    std::unique_ptr<std::uint64_t[]> m_filter; // packed tables only: 8 bits per slot
    std::size_t m_filterBits = 0;
    std::unique_ptr<char[]> m_arena; // fixed capacity between rebuilds: readers never see it move
    std::size_t m_arenaUsed = 0;
    std::size_t m_arenaCapacity = 0;
    std::size_t m_size = 0;
    std::atomic<std::byte *> m_publishedSlots{nullptr};
    std::atomic<std::size_t> m_publishedStride{sizeof(Slot)};
    std::atomic<std::size_t> m_publishedCount{0};
};

} // namespace qs::limiter::detail
