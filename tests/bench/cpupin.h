#pragma once
// Pins the calling thread to one CPU for a scope, then gives back the CPUs it had; and measures
// how far apart the CPUs that two pinned threads run on are.
//
// The threaded benchmarks pin thread i to the i-th CPU the process may use, as gateways pin
// their workers (nginx's worker_cpu_affinity, HAProxy's cpu-map). Unpinned, the scheduler
// moves a thread between vCPUs now and then, and on this VM the two vCPUs' caches are ~220 ns
// apart (a cache line's one-way trip between them), so every move makes the thread fetch its
// working set again from the other cache, and one run of a benchmark differs from the next by
// up to half (docs/benchmarks.md).
#include <atomic>
#include <chrono>
#include <pthread.h>
#include <sched.h>
#include <thread>

namespace qs::bench {

class CpuPin {
public:
    explicit CpuPin(int index)
    {
        m_saved = pthread_getaffinity_np(pthread_self(), sizeof m_before, &m_before) == 0;
        if (!m_saved || CPU_COUNT(&m_before) < 2)
            return;
        int nth = index % CPU_COUNT(&m_before);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (CPU_ISSET(cpu, &m_before) && nth-- == 0) {
                cpu_set_t one;
                CPU_ZERO(&one);
                CPU_SET(cpu, &one);
                pthread_setaffinity_np(pthread_self(), sizeof one, &one);
                return;
            }
        }
    }
    ~CpuPin()
    {
        if (m_saved)
            pthread_setaffinity_np(pthread_self(), sizeof m_before, &m_before);
    }
    CpuPin(const CpuPin &) = delete;
    CpuPin &operator=(const CpuPin &) = delete;

private:
    cpu_set_t m_before;
    bool m_saved = false;
};

// The one-way trip of a cache line between the CPUs of pinned threads 0 and 1, in ns: two
// threads hand a counter back and forth. Whether the two vCPUs share a cache is the host's
// choice and changes while a VM runs (55 ns when they do, 220 ns when they do not, on the
// development VM), and it decides what any structure written by both threads costs, so the
// benchmark prints it next to its two-thread ratios. 0 when there are not two CPUs to use
// (two spinning threads on one CPU would take a time slice per trip).
inline double lineTransferNs()
{
    cpu_set_t cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < 2)
        return 0;
    constexpr int kTrips = 200'000;
    alignas(128) std::atomic<int> ball{0};
    std::thread other([&] {
        const CpuPin pin(1);
        for (int i = 0; i < kTrips; ++i) {
            while (ball.load(std::memory_order_acquire) != 2 * i + 1) { }
            ball.store(2 * i + 2, std::memory_order_release);
        }
    });
    const CpuPin pin(0);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kTrips; ++i) {
        ball.store(2 * i + 1, std::memory_order_release);
        while (ball.load(std::memory_order_acquire) != 2 * i + 2) { }
    }
    const auto end = std::chrono::steady_clock::now();
    other.join();
    return std::chrono::duration<double, std::nano>(end - start).count() / (2.0 * kTrips);
}

} // namespace qs::bench
