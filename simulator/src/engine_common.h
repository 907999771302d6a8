// Pieces both engines share: fetching the stream from DDR and the per-instruction counters.
#pragma once

#include <vector>

#include "npu/isa/instruction.h"
#include "npu/simulator/simulate.h"

namespace npu::sim {

/// Decodes words from DDR at codeAddress up to and including END. Throws SimFault
/// (illegal-word, or ddr-out-of-range when DDR ends first).
std::vector<isa::Instruction> fetchStream(const isa::DdrImage& ddr, std::uint64_t codeAddress);

/// Adds an executed instruction to the opcode counts, MACs and DDR byte counters.
void countInstruction(const isa::Instruction& instruction, const isa::NpuConfig& config,
                      SimStats& stats);

/// Runs the functional engine (no time).
SimResult runFunctional(const isa::NpuConfig& config, isa::DdrImage ddr,
                        const std::vector<isa::Instruction>& stream, const SimOptions& options);

/// Runs the SystemC cycle model.
SimResult runTimed(const isa::NpuConfig& config, isa::DdrImage ddr,
                   const std::vector<isa::Instruction>& stream, const SimOptions& options);

}  // namespace npu::sim
