// Dependency tokens: the four queues between neighbouring units, and which an instruction uses.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "npu/isa/instruction.h"

namespace npu::sim {

/// The four token queues; each has one producer unit and one consumer unit.
enum class TokenQueue : std::uint8_t {
  LoadToCompute,
  ComputeToLoad,
  ComputeToStore,
  StoreToCompute
};
inline constexpr std::size_t kTokenQueues = 4;

/// "load->compute" and so on.
std::string_view tokenQueueName(TokenQueue queue);

/// The queues an instruction pops before it starts and pushes when it has finished.
struct TokenOps {
  std::array<TokenQueue, 2> pops{};
  std::size_t popCount = 0;
  std::array<TokenQueue, 2> pushes{};
  std::size_t pushCount = 0;
};

/// Token operations of an instruction on the unit that executes it.
TokenOps tokenOps(const isa::Instruction& instruction);

/// Index of a unit among the three executing units: 0 load, 1 compute, 2 store.
inline std::size_t unitIndex(isa::Unit unit) {
  return unit == isa::Unit::Load ? 0 : (unit == isa::Unit::Compute ? 1 : 2);
}

}  // namespace npu::sim
