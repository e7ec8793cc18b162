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
        // The last 1..7 bytes without a byte loop (memcpy with a variable length compiles to
        // one): an 8-byte load that ends at the key's end, shifted down, when the key is long
        // enough; otherwise 4-, 2- and 1-byte loads that together cover the tail.
        std::uint64_t v = 0;
        if (key.size() >= 8) {
            std::memcpy(&v, p + n - 8, 8);
            v >>= 8 * (8 - n);
        } else {
            std::size_t at = 0;
            if (n & 4) {
                std::uint32_t w;
                std::memcpy(&w, p, 4);
                v = w;
                at = 4;
            }
            if (n & 2) {
                std::uint16_t w;
                std::memcpy(&w, p + at, 2);
                v |= std::uint64_t(w) << (8 * at);
                at += 2;
            }
            if (n & 1)
                v |= std::uint64_t(std::uint8_t(p[at])) << (8 * at);
        }
        h = (h ^ v) * kMul;
    }
    return finalizeHash(h);
}

} // namespace qs::limiter::detail
