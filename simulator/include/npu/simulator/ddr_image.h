// The virtual DDR: a byte-addressable image with a known fill pattern where nothing was written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "npu/isa/program.h"

namespace npu::sim {

/// Byte-addressable DDR contents. Bytes no segment initialises hold fillPattern(address), so a
/// stray write anywhere changes a byte the verifier can see.
class DdrImage {
 public:
  explicit DdrImage(std::uint64_t size);

  /// The DDR a program starts from: fill pattern, then every init segment, then the encoded
  /// instruction stream at the code address.
  static DdrImage fromProgram(const isa::Program& program);

  /// The byte an untouched address holds: 0xA5 ^ a[7:0] ^ a[15:8] (documented in docs/timing.md).
  static std::uint8_t fillPattern(std::uint64_t address);

  [[nodiscard]] std::uint64_t size() const { return m_bytes.size(); }
  [[nodiscard]] std::span<std::uint8_t> bytes() { return m_bytes; }
  [[nodiscard]] std::span<const std::uint8_t> bytes() const { return m_bytes; }

  /// Raw binary, byte 0 first.
  void saveBin(const std::filesystem::path& path) const;
  static DdrImage loadBin(const std::filesystem::path& path);

  /// $readmemh text: one 128-bit word per line (16 bytes, the byte at the lowest address is the
  /// least significant), the last word zero-padded.
  void saveHex(const std::filesystem::path& path) const;
  static DdrImage loadHex(const std::filesystem::path& path, std::uint64_t size);

  friend bool operator==(const DdrImage&, const DdrImage&) = default;

 private:
  std::vector<std::uint8_t> m_bytes;
};

}  // namespace npu::sim
