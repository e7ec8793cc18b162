#pragma once
// The slots of one KeyTable: `size` slots in one block aligned to a line pair, `stride` bytes
// apart.
//
// Two layouts, chosen per table each time it is rebuilt:
//  - packed (stride = sizeof(Slot)): least memory; a slot may share its cache line with
//    neighbours, and every decision writes its slot's line;
//  - padded (stride = a pair of cache lines): no two keys share a line, nor a 128-byte pair of
//    lines, which the adjacent-line prefetchers move together, so threads deciding on distinct
//    keys never write, or pull, each other's lines. On a small table, where both threads' keys
//    stay in their caches, sharing would otherwise move lines between cores on nearly every
//    decision (measured at 1000 keys, before the lanes: two threads 0.66-0.69x one with packed
//    slots, 1.28-1.37x with one line per slot, 1.49-2.09x with a pair per slot;
//    docs/benchmarks.md).
// A large table stays packed: padding would cost its memory on every key (the budget at 1M keys
// is 64 bytes), and it would not be enough: lines that two threads write slow each other down
// even a few hundred bytes apart, and only separate 4 KB pages did not (docs/benchmarks.md).
// Threads that keep to their own keys are kept apart by the rule's lanes instead, a table per
// thread (ruletable.h); keys that every thread uses share lines in any layout.
#include <cstddef>
#include <new>
#include <utility>

namespace qs::limiter::detail {

inline constexpr std::size_t kCacheLine = 64;
inline constexpr std::size_t kLinePair = 2 * kCacheLine;

template <class Slot>
class SlotArray {
    static_assert(sizeof(Slot) <= kCacheLine, "a padded slot must fit one cache line");

public:
    SlotArray() = default;
    SlotArray(std::size_t size, bool padded)
        : m_size(size), m_stride(padded ? kLinePair : sizeof(Slot)), m_padded(padded)
    {
        if (size == 0)
            return;
        m_bytes
            = static_cast<std::byte *>(::operator new(m_stride *size, std::align_val_t(kLinePair)));
        for (std::size_t i = 0; i < size; ++i)
            new (m_bytes + i * m_stride) Slot();
    }
    SlotArray(SlotArray &&other) noexcept { *this = std::move(other); }
    SlotArray &operator=(SlotArray &&other) noexcept
    {
        if (this != &other) {
            release();
            m_bytes = std::exchange(other.m_bytes, nullptr);
            m_size = std::exchange(other.m_size, 0);
            m_stride = std::exchange(other.m_stride, sizeof(Slot));
            m_padded = std::exchange(other.m_padded, false);
        }
        return *this;
    }
    SlotArray(const SlotArray &) = delete;
    SlotArray &operator=(const SlotArray &) = delete;
    ~SlotArray() { release(); }

    Slot &operator[](std::size_t i) { return *at(m_bytes, m_stride, i); }
    const Slot &operator[](std::size_t i) const { return *at(m_bytes, m_stride, i); }

    // Slot i of a block known only by its address and stride (prefetch uses the published
    // copies of both); only the address is computed, nothing is read.
    static Slot *at(std::byte *bytes, std::size_t stride, std::size_t i)
    {
        return std::launder(reinterpret_cast<Slot *>(bytes + i * stride));
    }

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::size_t stride() const { return m_stride; }
    bool padded() const { return m_padded; }
    std::size_t bytes() const { return m_size * m_stride; }
    std::byte *data() const { return m_bytes; }

private:
    void release()
    {
        if (!m_bytes)
            return;
        for (std::size_t i = 0; i < m_size; ++i)
            (*this)[i].~Slot();
        ::operator delete(m_bytes, std::align_val_t(kLinePair));
        m_bytes = nullptr;
        m_size = 0;
    }

    std::byte *m_bytes = nullptr;
    std::size_t m_size = 0;
    std::size_t m_stride = sizeof(Slot);
    bool m_padded = false; // as asked, even when sizeof(Slot) is a whole line
};

} // namespace qs::limiter::detail
