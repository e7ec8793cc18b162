#pragma once
// Which shard each thread is reading right now, so that a shard can be rebuilt (its slot array
// replaced and freed) only when no reader is inside it.
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

    ReaderRegistry() : m_slots(std::make_unique<Slot[]>(kSlots)) { }

    // The calling thread's announcement slot, or nullptr when it has none.
    std::atomic<const void *> *slotOfThisThread() const
    {
        const std::size_t index = threadIndex();
        return index < kSlots ? &m_slots[index].inside : nullptr;
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
        for (std::size_t i = 0; i < kSlots; ++i)
            while (m_slots[i].inside.load(kHandshakeAcquire) == shard)
                std::this_thread::yield();
    }

private:
    struct alignas(64) Slot {
        std::atomic<const void *> inside{nullptr};
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
};

// Announces the calling thread inside `shard` for its lifetime, unless the shard is being
// rebuilt (or the thread has no slot): then entered() is false and the caller takes the lock.
template <class Shard>
class ReaderScope {
public:
    ReaderScope(const ReaderRegistry &registry, const Shard &shard)
        : m_slot(registry.slotOfThisThread())
    {
        if (!m_slot)
            return;
        m_slot->store(&shard, kHandshakeOrder);
        AsymmetricFence::light();
        // Acquire: a reader that sees a rebuild's final `false` also sees the rebuilt table.
        if (shard.rebuilding.load(kHandshakeAcquire))
            leave();
    }
    ~ReaderScope() { leave(); }
    ReaderScope(const ReaderScope &) = delete;
    ReaderScope &operator=(const ReaderScope &) = delete;

    bool entered() const { return m_slot != nullptr; }

private:
    void leave()
    {
        if (m_slot)
            m_slot->store(nullptr, std::memory_order_release);
        m_slot = nullptr;
    }
    std::atomic<const void *> *m_slot;
};

} // namespace qs::limiter::detail
