// The NPU datapath: what one instruction does to the SRAMs and the DDR, with no notion of time.
#pragma once

#include <cstdint>
#include <span>

#include "npu/isa/instruction.h"
#include "npu/simulator/ddr_image.h"
#include "npu/simulator/sram_state.h"

namespace npu::sim {

/// Executes the semantics of docs/isa.md for one instruction. The caller has checked bounds
/// (checkBounds); SYNC and END do nothing here.
void executeDatapath(const isa::Instruction& instruction, SramState& sram, DdrImage& ddr);

}  // namespace npu::sim
