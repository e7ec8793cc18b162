#include "limiter/algorithms/asymmetricfence.h"

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace qs::limiter::detail {

bool AsymmetricFence::registerProcess() noexcept
{
#if defined(__linux__) && defined(SYS_membarrier) && !defined(QS_TSAN)
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
    return false;
#endif
}

void AsymmetricFence::heavy() noexcept
{
#if !defined(QS_TSAN)
#if defined(__linux__) && defined(SYS_membarrier)
    if (expedited() && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
        return;
#endif
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

} // namespace qs::limiter::detail
