// SramState construction.
#include "npu/simulator/sram_state.h"

namespace npu::sim {

SramState::SramState(const isa::NpuConfig& config)
    : input(static_cast<std::size_t>(config.inputSramBytes)),
      weight(static_cast<std::size_t>(config.weightSramBytes)),
      parameter(static_cast<std::size_t>(config.parameterSramBytes)),
      output(static_cast<std::size_t>(config.outputSramBytes)),
      accumulator(static_cast<std::size_t>(config.accumulatorSramBytes / 4)) {}

}  // namespace npu::sim
