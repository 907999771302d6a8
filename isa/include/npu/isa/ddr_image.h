// The virtual DDR: a byte-addressable image with a known fill pattern where nothing was written.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "npu/isa/program.h"

namespace npu::isa {

/// Byte-addressable DDR contents. Bytes no segment initialises hold fillPattern(address), so a
/// stray write anywhere changes a byte the verifier can see.
///
/// Storage is paged: a 64 KiB page exists only once written (the pattern repeats every 64 KiB,
/// so an absent page reads as the pattern), and copies share pages until one side writes, so a
/// 128 MiB DDR with a few MiB in use costs a few MiB.
class DdrImage {
 public:
  static constexpr std::uint64_t kPageBytes = 65536;

  explicit DdrImage(std::uint64_t size);

  /// The DDR a program starts from: fill pattern, then every init segment, then the encoded
  /// instruction stream at the code address.
  static DdrImage fromProgram(const Program& program);

  /// The byte an untouched address holds: 0xA5 ^ a[7:0] ^ a[15:8] (documented in docs/timing.md).
  static std::uint8_t fillPattern(std::uint64_t address);

  [[nodiscard]] std::uint64_t size() const { return m_size; }

  /// Accessors; the caller keeps addresses inside [0, size()).
  [[nodiscard]] std::uint8_t readByte(std::uint64_t address) const;
  void writeByte(std::uint64_t address, std::uint8_t value);
  void read(std::uint64_t address, std::span<std::uint8_t> out) const;
  void write(std::uint64_t address, std::span<const std::uint8_t> in);
  [[nodiscard]] std::vector<std::uint8_t> readRange(std::uint64_t address,
                                                    std::uint64_t length) const;

  /// The lowest address at which the two images differ (sizes must match), or nullopt.
  [[nodiscard]] std::optional<std::uint64_t> firstDifference(const DdrImage& other) const;

  /// Raw binary, byte 0 first.
  void saveBin(const std::filesystem::path& path) const;
  static DdrImage loadBin(const std::filesystem::path& path);

  /// $readmemh text: one 128-bit word per line (16 bytes, the byte at the lowest address is the
  /// least significant), the last word zero-padded.
  void saveHex(const std::filesystem::path& path) const;
  static DdrImage loadHex(const std::filesystem::path& path, std::uint64_t size);

  friend bool operator==(const DdrImage& a, const DdrImage& b) {
    return a.m_size == b.m_size && !a.firstDifference(b);
  }

 private:
  using Page = std::array<std::uint8_t, kPageBytes>;
  /// The page holding `address`, made private to this image (copy-on-write) and materialised.
  std::uint8_t* writablePage(std::uint64_t pageIndex);
  [[nodiscard]] const std::uint8_t* readablePage(std::uint64_t pageIndex) const;

  std::uint64_t m_size = 0;
  std::vector<std::shared_ptr<Page>> m_pages;
};

}  // namespace npu::isa
