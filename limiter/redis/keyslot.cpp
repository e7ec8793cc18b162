#include "limiter/redis/keyslot.h"

#include <array>

namespace qs::limiter {

namespace {

// Polynomial 0x1021, no reflection, initial value 0: the variant the cluster specification
// names (its reference value: crc16("123456789") = 0x31C3).
constexpr std::array<std::uint16_t, 256> makeTable()
{
    std::array<std::uint16_t, 256> table{};
    for (unsigned byte = 0; byte < 256; ++byte) {
        std::uint16_t crc = std::uint16_t(byte << 8);
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc & 0x8000) ? std::uint16_t((crc << 1) ^ 0x1021) : std::uint16_t(crc << 1);
        table[byte] = crc;
    }
    return table;
}

constexpr std::array<std::uint16_t, 256> kTable = makeTable();

} // namespace

std::uint16_t crc16Xmodem(std::string_view bytes)
{
    std::uint16_t crc = 0;
    for (unsigned char c : bytes)
        crc = std::uint16_t((crc << 8) ^ kTable[((crc >> 8) ^ c) & 0xff]);
    return crc;
}

std::uint16_t keySlot(std::string_view key)
{
    const std::size_t open = key.find('{');
    if (open != std::string_view::npos) {
        const std::size_t close = key.find('}', open + 1);
        if (close != std::string_view::npos && close > open + 1)
            key = key.substr(open + 1, close - open - 1);
    }
    return std::uint16_t(crc16Xmodem(key) % kClusterSlots);
}

} // namespace qs::limiter
