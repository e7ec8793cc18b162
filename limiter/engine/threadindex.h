#pragma once
// Small per-thread numbers for the reader registry: the lowest number no live thread holds.
// A thread takes one on first use and gives it back when it exits, so numbers stay below the
// peak count of threads alive at once, however many threads the process creates over its life.
#include <cstddef>

namespace qs::limiter::detail {

class ThreadIndexLease {
public:
    static constexpr std::size_t kNone = ~std::size_t(0);
    // What `holder` reads once the lease has ended: code that runs later in the same thread's
    // exit (another thread-local's destructor) must not use a number another thread may hold.
    static constexpr std::size_t kRetired = kNone - 1;

    // `holder`, if given, is where the caller keeps the number; the lease retires it on exit.
    explicit ThreadIndexLease(std::size_t *holder = nullptr);
    ~ThreadIndexLease();
    ThreadIndexLease(const ThreadIndexLease &) = delete;
    ThreadIndexLease &operator=(const ThreadIndexLease &) = delete;

    std::size_t index() const { return m_index; }

private:
    std::size_t m_index;
    std::size_t *m_holder;
};

} // namespace qs::limiter::detail
