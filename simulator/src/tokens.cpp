// Mapping of the pop/push flags to token queues, per executing unit.
#include "npu/simulator/tokens.h"

namespace npu::sim {
namespace {

struct Flags {
  std::int64_t popPrev = 0;
  std::int64_t popNext = 0;
  std::int64_t pushPrev = 0;
  std::int64_t pushNext = 0;
};

template <typename T>
Flags flagsOf(const T& typed) {
  Flags flags;
  if constexpr (requires { typed.pop_prev; }) {
    flags.popPrev = typed.pop_prev;
  }
  if constexpr (requires { typed.pop_next; }) {
    flags.popNext = typed.pop_next;
  }
  if constexpr (requires { typed.push_prev; }) {
    flags.pushPrev = typed.push_prev;
  }
  if constexpr (requires { typed.push_next; }) {
    flags.pushNext = typed.push_next;
  }
  return flags;
}

}  // namespace

std::string_view tokenQueueName(TokenQueue queue) {
  switch (queue) {
    case TokenQueue::LoadToCompute:
      return "load->compute";
    case TokenQueue::ComputeToLoad:
      return "compute->load";
    case TokenQueue::ComputeToStore:
      return "compute->store";
    case TokenQueue::StoreToCompute:
      return "store->compute";
  }
  return "?";
}

TokenOps tokenOps(const isa::Instruction& instruction) {
  const Flags flags = std::visit([](const auto& typed) { return flagsOf(typed); }, instruction);
  TokenOps ops;
  auto pop = [&](std::int64_t flag, TokenQueue queue) {
    if (flag != 0) {
      ops.pops[ops.popCount++] = queue;
    }
  };
  auto push = [&](std::int64_t flag, TokenQueue queue) {
    if (flag != 0) {
      ops.pushes[ops.pushCount++] = queue;
    }
  };
  switch (isa::executingUnit(instruction)) {
    case isa::Unit::Load:
      pop(flags.popNext, TokenQueue::ComputeToLoad);
      push(flags.pushNext, TokenQueue::LoadToCompute);
      break;
    case isa::Unit::Compute:
      pop(flags.popPrev, TokenQueue::LoadToCompute);
      pop(flags.popNext, TokenQueue::StoreToCompute);
      push(flags.pushPrev, TokenQueue::ComputeToLoad);
      push(flags.pushNext, TokenQueue::ComputeToStore);
      break;
    case isa::Unit::Store:
      pop(flags.popPrev, TokenQueue::ComputeToStore);
      push(flags.pushPrev, TokenQueue::StoreToCompute);
      break;
    default:
      break;
  }
  return ops;
}

}  // namespace npu::sim
