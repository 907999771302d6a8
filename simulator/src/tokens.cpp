// The queues an instruction's pop/push flags name on its executing unit.
#include "npu/simulator/tokens.h"

namespace npu::sim {

TokenOps tokenOps(const isa::Instruction& instruction) {
  TokenOps ops;
  const isa::Unit unit = isa::executingUnit(instruction);
  for (const isa::TokenFlag flag : isa::kTokenFlags) {
    const std::optional<TokenQueue> queue = isa::tokenQueueOf(unit, flag);
    if (!queue || isa::tokenFlag(instruction, flag) == 0) {
      continue;
    }
    if (isa::isPop(flag)) {
      ops.pops[ops.popCount++] = *queue;
    } else {
      ops.pushes[ops.pushCount++] = *queue;
    }
  }
  return ops;
}

}  // namespace npu::sim
