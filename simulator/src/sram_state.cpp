// SramState construction and memory-space names.
#include "npu/simulator/sram_state.h"

namespace npu::sim {

std::string_view memorySpaceName(MemorySpace space) {
  switch (space) {
    case MemorySpace::Input:
      return "input SRAM";
    case MemorySpace::Weight:
      return "weight SRAM";
    case MemorySpace::Parameter:
      return "parameter SRAM";
    case MemorySpace::Output:
      return "output SRAM";
    case MemorySpace::Accumulator:
      return "accumulator SRAM";
    case MemorySpace::Ddr:
      return "DDR";
  }
  return "?";
}

SramState::SramState(const isa::NpuConfig& config)
    : input(static_cast<std::size_t>(config.inputSramBytes)),
      weight(static_cast<std::size_t>(config.weightSramBytes)),
      parameter(static_cast<std::size_t>(config.parameterSramBytes)),
      output(static_cast<std::size_t>(config.outputSramBytes)),
      accumulator(static_cast<std::size_t>(config.accumulatorSramBytes / 4)) {}

}  // namespace npu::sim
