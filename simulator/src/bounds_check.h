// The simulator's run-time address check, built on the ISA's instruction footprints.
#pragma once

#include <cstddef>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::sim {

/// Throws SimFault (sram-out-of-range or ddr-out-of-range) naming instruction `index` when an
/// access of `instruction` leaves its memory.
void checkBounds(const isa::Instruction& instruction, std::size_t index,
                 const isa::NpuConfig& config);

}  // namespace npu::sim
