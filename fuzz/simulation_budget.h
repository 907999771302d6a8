// The work a fuzz target lets one program simulate: what keeps a valid but heavy program (one
// POOL may read 4 G window elements within its SRAM bounds) from spending seconds per input under
// the sanitizers and coverage instrumentation, the campaigns' 1 s timeout.
#pragma once

#include <cstdint>

#include "npu/isa/program.h"
#include "npu/simulator/timing.h"

namespace npu::fuzz {

/// Programs whose instructions keep their units busy longer than this in all (docs/timing.md,
/// one after another) are parsed, validated and disassembled but not simulated: a POOL or CONV
/// of 250,000 cycles already runs every loop of the datapath, and the simulators' code is the
/// same for a larger one.
inline constexpr std::uint64_t kSimulatedCycles = 250'000;

inline bool worthSimulating(const isa::Program& program) {
  std::uint64_t cycles = 0;
  for (const isa::Instruction& instruction : program.instructions) {
    cycles += sim::instructionCycles(instruction, program.config);
    if (cycles > kSimulatedCycles) {
      return false;
    }
  }
  return true;
}

}  // namespace npu::fuzz
