#pragma once
// A test-and-test-and-set lock for the engine's shards. Critical sections are a few dozen ns
// (one probe and one decision), where std::mutex's futex path costs more than the work.
// After a short spin it yields, so a preempted holder on a 2-core machine does not stall others.
#include <atomic>
#include <thread>

namespace qs::limiter::detail {

class SpinLock {
public:
    void lock() noexcept
    {
        for (int spins = 0;; ++spins) {
            if (!m_locked.exchange(true, std::memory_order_acquire))
                return;
            while (m_locked.load(std::memory_order_relaxed)) {
                if (++spins > 64)
                    std::this_thread::yield();
                else
                    relax();
            }
        }
    }
    void unlock() noexcept { m_locked.store(false, std::memory_order_release); }

private:
    static void relax() noexcept
    {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    std::atomic<bool> m_locked{false};
};

} // namespace qs::limiter::detail
