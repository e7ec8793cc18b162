#pragma once
// The byte format the Redis scripts use for states and replies: little-endian IEEE doubles
// packed back to back (Lua's struct.pack('<d…')). Independent of any transport, so the backend,
// the monitor and tests decode the same way.
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace qs::limiter {

// Fills `out` when `bytes` holds exactly out.size() doubles; false otherwise.
inline bool unpackDoubles(std::string_view bytes, std::span<double> out)
{
    if (bytes.size() != out.size() * sizeof(double))
        return false;
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::uint64_t bits;
        std::memcpy(&bits, bytes.data() + i * sizeof bits, sizeof bits);
        if constexpr (std::endian::native == std::endian::big)
            bits = __builtin_bswap64(bits);
        out[i] = std::bit_cast<double>(bits);
    }
    return true;
}

inline std::string packDoubles(std::span<const double> values)
{
    std::string bytes(values.size() * sizeof(double), '\0');
    for (std::size_t i = 0; i < values.size(); ++i) {
        auto bits = std::bit_cast<std::uint64_t>(values[i]);
        if constexpr (std::endian::native == std::endian::big)
            bits = __builtin_bswap64(bits);
        std::memcpy(bytes.data() + i * sizeof bits, &bits, sizeof bits);
    }
    return bytes;
}

} // namespace qs::limiter
