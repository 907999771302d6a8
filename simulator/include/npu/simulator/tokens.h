// Dependency tokens: the queues an instruction pops and pushes (the mapping lives in
// npu/isa/tokens.h).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "npu/isa/instruction.h"
#include "npu/isa/tokens.h"

namespace npu::sim {

using isa::kTokenQueues;
using isa::TokenQueue;
using isa::tokenQueueName;
using isa::unitIndex;

/// The queues an instruction pops before it starts and pushes when it has finished.
struct TokenOps {
  std::array<TokenQueue, 2> pops{};
  std::size_t popCount = 0;
  std::array<TokenQueue, 2> pushes{};
  std::size_t pushCount = 0;
};

/// Token operations of an instruction on the unit that executes it.
TokenOps tokenOps(const isa::Instruction& instruction);

}  // namespace npu::sim
