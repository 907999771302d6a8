// The NPU's on-chip SRAMs as the datapath sees them.
#pragma once

#include <cstdint>
#include <vector>

#include "npu/isa/npu_config.h"

namespace npu::sim {

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
