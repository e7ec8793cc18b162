#pragma once
// Which shards each thread is reading right now, so that a shard can be rebuilt (its slot array
// replaced and freed) only when no reader is inside it.
//
// A thread is inside one shard for a decision, and inside one shard per limit while it holds the
// slots of a request's several limits (Engine::acquireAll): each thread has kEntries
// announcement entries, one per shard it can be inside at once. Entry 0 sits in the thread's own
// line with a flag saying whether it uses the others (held around acquireAll); a rebuild reads
// the others only for threads whose flag is up. Scanning all 16 of every thread on every
// rebuild made a shedding workload (keys dropped as they turn fresh, then met again) 4.5x slower
// (simulator_bench's engine reference, 12 → 2.7 M decisions/s).
//
// Each thread announces itself in a cache line of its own: entering a shard writes only that
// line, never a line another thread writes. That is what lets two threads on distinct keys
// scale, where one lock per shard made the lock's cache line change cores on every other call.
//
// Protocol (Dekker-style, with an asymmetric fence: asymmetricfence.h):
//   reader:  announce(shard); light fence; if (shard.rebuilding) { leave(); take the lock }
//   writer:  shard.rebuilding = true; heavy fence; waitUntilNoneIn(shard); rebuild;
//            shard.rebuilding = false
// Either the reader sees `rebuilding`, or the writer sees the reader's announcement.
#include "limiter/algorithms/asymmetricfence.h"
#include "limiter/engine/threadindex.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>

namespace qs::limiter::detail {

class ReaderRegistry {
public:
    // Threads beyond this many (in the life of the process) use the shard lock instead.
    static constexpr std::size_t kSlots = 256;
    // Shards one thread can be inside at once: a request's limits (kMaxLimitsPerRequest).
    static constexpr std::size_t kEntries = 16;

    ReaderRegistry()
        : m_slots(std::make_unique<Slot[]>(kSlots)), m_extras(std::make_unique<Extras[]>(kSlots))
    {
    }

    // The calling thread's announcement entry `entry`, or nullptr when it has none. Entries
    // from 1 on count only between useExtraEntries(true) and useExtraEntries(false).
    std::atomic<const void *> *slotOfThisThread(std::size_t entry = 0) const
    {
        const std::size_t index = threadIndex();
        if (index >= kSlots || entry >= kEntries)
            return nullptr;
        return entry == 0 ? &m_slots[index].inside : &m_extras[index].inside[entry - 1];
    }

    // Raised before this thread announces itself in entries beyond the first, lowered after it
    // has left them all. Both stores come before the announcements' fences (or after the last
    // leave): a rebuild that reads the flag down after its heavy fence either sees no extra
    // entry in use, or that thread will see the rebuild's flag and back off (the protocol
    // above).
    void useExtraEntries(bool on) const
    {
        const std::size_t index = threadIndex();
        if (index < kSlots)
            m_slots[index].extras.store(on, on ? kHandshakeOrder : kReleaseOrder);
    }

    // The calling thread's lane among `lanes` (its registry number modulo `lanes`; lane 0 for a
    // thread without a number).
    static std::size_t laneOfThisThread(std::size_t lanes)
    {
        const std::size_t index = threadIndex();
        return index < kSlots ? index % lanes : 0;
    }

    // Call after setting the shard's `rebuilding` flag.
    void waitUntilNoneIn(const void *shard) const
    {
        AsymmetricFence::heavy();
        for (std::size_t i = 0; i < kSlots; ++i) {
            while (m_slots[i].inside.load(kHandshakeAcquire) == shard)
                std::this_thread::yield();
            if (!m_slots[i].extras.load(kHandshakeAcquire))
                continue;
            for (const auto &inside : m_extras[i].inside)
                while (inside.load(kHandshakeAcquire) == shard)
                    std::this_thread::yield();
        }
    }

private:
    static constexpr std::memory_order kReleaseOrder = std::memory_order_release;
    struct alignas(64) Slot {
        std::atomic<const void *> inside{nullptr};
        std::atomic<bool> extras{false};
    };
    struct alignas(64) Extras {
        std::atomic<const void *> inside[kEntries - 1] = {};
    };

    static std::size_t threadIndex()
    {
        // Constant-initialised, so reading it needs no TLS guard check; assigned on first use
        // and handed back when the thread exits (ThreadIndexLease), so that a process which
        // keeps creating worker threads never runs out of slots. After that, it reads
        // kRetired (beyond kSlots): the shard lock for anything the exiting thread still does.
        thread_local std::size_t index = ThreadIndexLease::kNone;
        if (index == ThreadIndexLease::kNone) [[unlikely]] {
            thread_local ThreadIndexLease lease(&index);
            index = lease.index();
        }
        return index;
    }

    std::unique_ptr<Slot[]> m_slots;
    std::unique_ptr<Extras[]> m_extras;
};

// Announces the calling thread inside `shard` in its entry `entry`, unless the shard is being
// rebuilt (or the thread has no entry): returns the entry to leave later, or nullptr, and then
// the caller takes the shard's lock instead.
template <class Shard>
std::atomic<const void *> *enterShard(
    const ReaderRegistry &registry, const Shard &shard, std::size_t entry = 0)
{
    std::atomic<const void *> *slot = registry.slotOfThisThread(entry);
    if (!slot)
        return nullptr;
    slot->store(&shard, kHandshakeOrder);
    AsymmetricFence::light();
    // Acquire: a reader that sees a rebuild's final `false` also sees the rebuilt table.
    if (shard.rebuilding.load(kHandshakeAcquire)) {
        slot->store(nullptr, std::memory_order_release);
        return nullptr;
    }
    return slot;
}

inline void leaveShard(std::atomic<const void *> *slot)
{
    if (slot)
        slot->store(nullptr, std::memory_order_release);
}

// enterShard() for the lifetime of the scope, in entry 0.
template <class Shard>
class ReaderScope {
public:
    ReaderScope(const ReaderRegistry &registry, const Shard &shard)
        : m_slot(enterShard(registry, shard))
    {
    }
    ~ReaderScope() { leaveShard(m_slot); }
    ReaderScope(const ReaderScope &) = delete;
    ReaderScope &operator=(const ReaderScope &) = delete;

    bool entered() const { return m_slot != nullptr; }

private:
    std::atomic<const void *> *m_slot;
};

} // namespace qs::limiter::detail
