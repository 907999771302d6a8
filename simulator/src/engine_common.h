// Pieces both engines share: fetching the stream from DDR and the per-instruction counters.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "npu/isa/instruction.h"
#include "npu/simulator/simulate.h"

namespace npu::sim {

/// Reads DDR bytes for fetchStream; may throw SimFault.
using WordReader = std::function<void(std::uint64_t address, std::span<std::uint8_t> out)>;

/// Decodes words from a DDR of `ddrBytes` at codeAddress up to and including END, each read
/// through `read`. Throws SimFault (illegal-word, or ddr-out-of-range when DDR ends first).
std::vector<isa::Instruction> fetchStream(std::uint64_t ddrBytes, std::uint64_t codeAddress,
                                          const WordReader& read);
/// fetchStream from a DDR image.
std::vector<isa::Instruction> fetchStream(const isa::DdrImage& ddr, std::uint64_t codeAddress);

/// What the timed model proves before its units start: the token analysis (no deadlock) and,
/// when options.checkHazards, the hazard check. Throws SimFault.
void checkBeforeTimedRun(const std::vector<isa::Instruction>& stream, const isa::NpuConfig& config,
                         const SimOptions& options);

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
