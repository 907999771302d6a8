// What memory an instruction reads and writes, computed from its fields alone: the one place the
// bounds checker and the hazard checker learn addresses from.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::isa {

/// The memory an access goes to; Ddr is the virtual DDR.
enum class MemorySpace : std::uint8_t { Input, Weight, Parameter, Output, Accumulator, Ddr };

/// Lower-case name used in messages ("input SRAM", "DDR").
std::string_view memorySpaceName(MemorySpace space);

/// A strided byte set: for y < yCount, x < xCount, the bytes
/// [base + y*yStride + x*xStride, + run). Accumulator accesses are in bytes (entry index * 4).
struct Access {
  MemorySpace space = MemorySpace::Input;
  bool write = false;
  std::uint64_t base = 0;
  std::uint64_t yCount = 1;
  std::uint64_t yStride = 0;
  std::uint64_t xCount = 1;
  std::uint64_t xStride = 0;
  std::uint64_t run = 0;

  /// One past the highest byte touched.
  [[nodiscard]] std::uint64_t end() const {
    return base + (yCount - 1) * yStride + (xCount - 1) * xStride + run;
  }
  /// Calls f(first, length) for every contiguous run.
  template <typename F>
  void forEachRun(F&& f) const {
    for (std::uint64_t y = 0; y < yCount; ++y) {
      for (std::uint64_t x = 0; x < xCount; ++x) {
        f(base + y * yStride + x * xStride, run);
      }
    }
  }
};

/// Every access of one instruction.
std::vector<Access> footprint(const Instruction& instruction);

/// Bytes of a memory space in this configuration.
std::uint64_t spaceBytes(const NpuConfig& config, MemorySpace space);

}  // namespace npu::isa
