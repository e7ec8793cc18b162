#pragma once
// A Dekker handshake where one side is hot and the other rare: the engine's readers announce
// themselves on every acquire, a shard rebuild happens once in a while. With Linux's
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), the rare side makes every running thread of
// the process execute a full memory barrier, so the hot side needs only a compiler barrier
// instead of a locked instruction (the saving is measured in docs/benchmarks.md, "Limiter
// engine"). The same technique as liburcu and folly's asymmetric barriers.
//
//   hot:  store A (kHandshakeOrder); light(); load B (kHandshakeOrder)
//   rare: store B (seq_cst);         heavy(); load A (kHandshakeOrder)
// Either the hot side sees B, or the rare side sees A, never neither.
//
// Without membarrier (old kernels, some sandboxes) light() is a full fence: correct, slower.
// ThreadSanitizer models neither membarrier nor fences: its builds make the handshake's own
// accesses seq_cst instead, which TSan understands.
#include <atomic>

#if defined(__SANITIZE_THREAD__)
#define QS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define QS_TSAN 1
#endif
#endif

namespace qs::limiter::detail {

// kHandshakeOrder for the announcing store, kHandshakeAcquire for loads that must also
// see what the other side wrote before (a rebuilt table, a reader's last access).
#if defined(QS_TSAN)
inline constexpr std::memory_order kHandshakeOrder = std::memory_order_seq_cst;
inline constexpr std::memory_order kHandshakeAcquire = std::memory_order_seq_cst;
#else
inline constexpr std::memory_order kHandshakeOrder = std::memory_order_relaxed;
inline constexpr std::memory_order kHandshakeAcquire = std::memory_order_acquire;
#endif

class AsymmetricFence {
public:
    static void light() noexcept
    {
#if !defined(QS_TSAN)
        if (expedited())
            std::atomic_signal_fence(std::memory_order_seq_cst);
        else
            std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
    }
    static void heavy() noexcept;

private:
    // Registered once, before the first light(); then a constant the branch predictor learns.
    static bool expedited() noexcept
    {
        static const bool registered = registerProcess();
        return registered;
    }
    static bool registerProcess() noexcept;
};

} // namespace qs::limiter::detail
