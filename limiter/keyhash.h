#pragma once
// A fast 64-bit hash for short keys (IP addresses, API keys): 8 bytes per multiply, then a
// strong finalizer so that every output bit depends on every input bit (the engine picks the
// shard from the top bits, the slot from the middle bits and the tag from the low bits).
#include <cstdint>
#include <cstring>
#include <string_view>

namespace qs::limiter::detail {

inline std::uint64_t finalizeHash(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

inline std::uint64_t hashKey(std::string_view key, std::uint64_t seed)
{
    constexpr std::uint64_t kMul = 0x9e3779b97f4a7c15ULL;
    std::uint64_t h = seed ^ (std::uint64_t(key.size()) * kMul);
    const char *p = key.data();
    std::size_t n = key.size();
    while (n >= 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        h = (h ^ v) * kMul;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, n);
        h = (h ^ v) * kMul;
    }
    return finalizeHash(h);
}

} // namespace qs::limiter::detail
