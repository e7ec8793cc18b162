#pragma once
// Keys that look like client addresses, and a pre-drawn random walk over them, so that the
// timed loop pays for neither formatting nor a random number generator.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace qs::bench {

inline std::vector<std::string> makeKeys(std::size_t n, std::uint32_t seed = 7)
{
    std::vector<std::string> keys;
    keys.reserve(n);
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < n; ++i) {
        // Distinct by construction (i spread over three octets), random-looking in the last.
        keys.push_back("10." + std::to_string((i >> 16) & 0xff) + "."
            + std::to_string((i >> 8) & 0xff) + "." + std::to_string(i & 0xff) + ":"
            + std::to_string(rng() % 10000));
    }
    return keys;
}

// The keys packed in 24-byte records (length byte + up to 23 characters): a million keys in
// 24 MB, one cache line each, so that the benchmark's own key storage disturbs the engine's
// cache footprint as little as a gateway's request buffers would.
class PackedKeys {
public:
    explicit PackedKeys(const std::vector<std::string> &keys) : m_bytes(keys.size() * kRecord)
    {
        for (std::size_t i = 0; i < keys.size(); ++i) {
            char *r = &m_bytes[i * kRecord];
            r[0] = char(keys[i].size());
            keys[i].copy(r + 1, kRecord - 1);
        }
    }
    std::string_view operator[](std::size_t i) const
    {
        const char *r = &m_bytes[i * kRecord];
        return {r + 1, std::size_t(std::uint8_t(r[0]))};
    }
    const char *record(std::size_t i) const { return &m_bytes[i * kRecord]; }
    std::size_t size() const { return m_bytes.size() / kRecord; }

private:
    static constexpr std::size_t kRecord = 24;
    std::vector<char> m_bytes;
};

// Random indices in [begin, begin + count) without a table: xorshift64 and a multiply-shift.
class RandomPick {
public:
    RandomPick(std::size_t begin, std::size_t count, std::uint64_t seed)
        : m_begin(begin), m_count(count), m_x(seed * 0x9e3779b97f4a7c15ULL | 1)
    {
    }
    std::size_t next()
    {
        m_x ^= m_x << 13;
        m_x ^= m_x >> 7;
        m_x ^= m_x << 17;
        __extension__ typedef unsigned __int128 U128;
        return m_begin + std::size_t(U128(m_x) * m_count >> 64);
    }

private:
    std::size_t m_begin, m_count;
    std::uint64_t m_x;
};

inline std::size_t keyChars(const std::vector<std::string> &keys)
{
    std::size_t n = 0;
    for (const auto &k : keys)
        n += k.size();
    return n;
}

} // namespace qs::bench
