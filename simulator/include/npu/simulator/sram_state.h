// The NPU's on-chip SRAMs as the datapath sees them.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "npu/isa/npu_config.h"

namespace npu::sim {

/// The SRAM an access goes to; Ddr is the virtual DDR.
enum class MemorySpace : std::uint8_t { Input, Weight, Parameter, Output, Accumulator, Ddr };

/// Lower-case name used in messages ("input SRAM", "DDR").
std::string_view memorySpaceName(MemorySpace space);

/// All SRAMs, sized by the config. The accumulator holds int32 entries; the others bytes.
struct SramState {
  explicit SramState(const isa::NpuConfig& config);

  std::vector<std::int8_t> input;
  std::vector<std::int8_t> weight;
  std::vector<std::uint8_t> parameter;
  std::vector<std::int8_t> output;
  std::vector<std::int32_t> accumulator;
};

}  // namespace npu::sim
