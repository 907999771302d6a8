// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) as used by zlib and PNG.
#pragma once

#include <cstdint>
#include <span>

namespace npu {

/// Continues a CRC-32 over `data`; start with crc = 0.
std::uint32_t crc32(std::span<const std::uint8_t> data, std::uint32_t crc = 0);

}  // namespace npu
