#pragma once
// The floor under any lookup that needs one dependent memory access: a walk through the 64-byte
// lines of an array in one random cycle, each line holding the index of the next, so that no
// access can start before the previous one has returned (a pointer chase). Over as many bytes
// as the engine's table holds, its time per step is what one decision's cache miss costs on
// this machine at that moment; the engine is reported as a ratio to it, because the host's
// memory latency moves by tens of ns with the other tenants' load (docs/benchmarks.md).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>

namespace qs::bench {

class PointerChase {
public:
    explicit PointerChase(std::size_t bytes, std::uint64_t seed = 5)
        : m_count(std::max<std::size_t>(2, bytes / sizeof(Line))),
          m_lines(std::make_unique<Line[]>(m_count))
    {
        // The lines in a random order, each pointing at the next and the last at the first:
        // one cycle through every line, so the walk never settles into a cached loop.
        std::unique_ptr<std::size_t[]> order = std::make_unique<std::size_t[]>(m_count);
        for (std::size_t i = 0; i < m_count; ++i)
            order[i] = i;
        std::shuffle(order.get(), order.get() + m_count, std::mt19937_64(seed));
        for (std::size_t i = 0; i < m_count; ++i)
            m_lines[order[i]].next = order[(i + 1) % m_count];
    }

    // One dependent access: the next line's index is known only once this one has arrived.
    std::size_t step(std::size_t at) const { return m_lines[at].next; }
    std::size_t bytes() const { return m_count * sizeof(Line); }

private:
    struct alignas(64) Line {
        std::size_t next = 0;
    };
    std::size_t m_count;
    std::unique_ptr<Line[]> m_lines;
};

} // namespace qs::bench
