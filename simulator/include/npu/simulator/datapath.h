// The NPU datapath: what one instruction does to the SRAMs and the DDR, with no notion of time.
#pragma once

#include <cstdint>
#include <span>

#include "npu/isa/ddr_image.h"
#include "npu/isa/instruction.h"
#include "npu/simulator/sram_state.h"

namespace npu::sim {

/// Executes the semantics of docs/isa.md for one instruction. The caller has checked bounds
/// (checkBounds); SYNC and END do nothing here. A large CONV may use up to `threads` threads;
/// the result does not depend on it.
/// How many row ranges (threads) a CONV's datapath is split into with `threads` available: 1
/// below 4 M MACs, else at most one per 2 M MACs and per output row.
std::int64_t convDatapathParts(const isa::Conv& conv, unsigned threads);

void executeDatapath(const isa::Instruction& instruction, SramState& sram, isa::DdrImage& ddr,
                     unsigned threads = 1);

}  // namespace npu::sim
