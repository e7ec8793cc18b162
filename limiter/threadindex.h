#pragma once
// Small per-thread numbers for the reader registry: the lowest number no live thread holds.
// A thread takes one on first use and gives it back when it exits, so numbers stay below the
// peak count of threads alive at once, however many threads the process creates over its life.
#include <cstddef>

namespace qs::limiter::detail {

class ThreadIndexLease {
public:
    static constexpr std::size_t kNone = ~std::size_t(0);

    ThreadIndexLease();
    ~ThreadIndexLease();
    ThreadIndexLease(const ThreadIndexLease &) = delete;
    ThreadIndexLease &operator=(const ThreadIndexLease &) = delete;

    std::size_t index() const { return m_index; }

private:
    std::size_t m_index;
};

} // namespace qs::limiter::detail
