// checkBounds: every access of an instruction must stay inside its memory.
#include "bounds_check.h"

#include <fmt/format.h>

#include "npu/isa/footprint.h"
#include "npu/simulator/sim_fault.h"

namespace npu::sim {

using u64 = std::uint64_t;

void checkBounds(const isa::Instruction& instruction, std::size_t index,
                 const isa::NpuConfig& config) {
  for (const isa::Access& access : isa::footprint(instruction)) {
    const u64 limit = isa::spaceBytes(config, access.space);
    if (access.end() > limit) {
      const bool ddr = access.space == isa::MemorySpace::Ddr;
      throw SimFault(
          ddr ? FaultKind::DdrOutOfRange : FaultKind::SramOutOfRange,
          static_cast<std::int64_t>(index),
          fmt::format("{} fault at instruction {} ({}, {} unit): {} {} [0x{:x}, 0x{:x}) exceeds "
                      "its {} bytes",
                      faultKindName(ddr ? FaultKind::DdrOutOfRange : FaultKind::SramOutOfRange),
                      index, isa::mnemonicOf(instruction),
                      isa::unitName(isa::executingUnit(instruction)),
                      isa::memorySpaceName(access.space), access.write ? "write" : "read",
                      access.base, access.end(), limit));
    }
  }
}

}  // namespace npu::sim
