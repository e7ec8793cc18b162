#pragma once
// Redis Cluster's key → slot function: CRC16 (XMODEM) of the key, or of its hash tag — the part
// between the first '{' and the next '}' when that part is not empty — modulo 16384.
#include <cstdint>
#include <string_view>

namespace qs::limiter {

inline constexpr int kClusterSlots = 16384;

std::uint16_t crc16Xmodem(std::string_view bytes);
std::uint16_t keySlot(std::string_view key);

} // namespace qs::limiter
