#pragma once
// Heap bytes in use, as the allocator counts them (glibc mallinfo2: small blocks + mmapped
// blocks). Measured, not estimated: includes malloc headers, vector slack and fragmentation.
#include <malloc.h>

#include <cstddef>

namespace qs::bench {

inline std::size_t heapInUse()
{
    malloc_trim(0);
    const struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}

} // namespace qs::bench
