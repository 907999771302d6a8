// Dependency tokens: the four queues between neighbouring units and which queue each pop/push flag
// names on each unit. The one statement of that mapping; the simulator, the token emitter and the
// RTL package (generated into npu_isa_pkg.sv) all read it from here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "npu/isa/instruction.h"

namespace npu::isa {

/// The four token queues, numbered as the RTL's TQ_* indices; each has one producer unit and one
/// consumer unit.
enum class TokenQueue : std::uint8_t {
  LoadToCompute,
  ComputeToLoad,
  ComputeToStore,
  StoreToCompute
};

/// One token queue: who pushes, who pops, how messages name it and the RTL's TQ_ suffix.
struct TokenQueueInfo {
  TokenQueue queue;
  Unit producer;
  Unit consumer;
  std::string_view name;
  std::string_view svName;
};

/// Every token queue, in TokenQueue order.
inline constexpr std::array<TokenQueueInfo, 4> kTokenQueueTable{{
    {TokenQueue::LoadToCompute, Unit::Load, Unit::Compute, "load->compute", "L2C"},
    {TokenQueue::ComputeToLoad, Unit::Compute, Unit::Load, "compute->load", "C2L"},
    {TokenQueue::ComputeToStore, Unit::Compute, Unit::Store, "compute->store", "C2S"},
    {TokenQueue::StoreToCompute, Unit::Store, Unit::Compute, "store->compute", "S2C"},
}};
inline constexpr std::size_t kTokenQueues = kTokenQueueTable.size();

/// The four dependency flags of a word (bits 4..7, the same place in every opcode).
enum class TokenFlag : std::uint8_t { PopPrev, PopNext, PushPrev, PushNext };

/// Every flag, in bit order, with its field name in instructions.def.
inline constexpr std::array<TokenFlag, 4> kTokenFlags{TokenFlag::PopPrev, TokenFlag::PopNext,
                                                      TokenFlag::PushPrev, TokenFlag::PushNext};

/// The field name of a flag ("pop_prev").
constexpr std::string_view tokenFlagName(TokenFlag flag) {
  switch (flag) {
    case TokenFlag::PopPrev:
      return "pop_prev";
    case TokenFlag::PopNext:
      return "pop_next";
    case TokenFlag::PushPrev:
      return "push_prev";
    case TokenFlag::PushNext:
      return "push_next";
  }
  return "?";
}

/// Whether a flag pops (else it pushes).
constexpr bool isPop(TokenFlag flag) {
  return flag == TokenFlag::PopPrev || flag == TokenFlag::PopNext;
}

/// Whether a flag names the next unit (else the previous one).
constexpr bool isNext(TokenFlag flag) {
  return flag == TokenFlag::PopNext || flag == TokenFlag::PushNext;
}

/// The row of a queue.
constexpr const TokenQueueInfo& tokenQueueInfo(TokenQueue queue) {
  return kTokenQueueTable[static_cast<std::size_t>(queue)];
}

/// "load->compute" and so on.
constexpr std::string_view tokenQueueName(TokenQueue queue) {
  return tokenQueueInfo(queue).name;
}

/// The queue from `producer` to `consumer`, or nullopt when they are not neighbours.
constexpr std::optional<TokenQueue> tokenQueueBetween(Unit producer, Unit consumer) {
  for (const TokenQueueInfo& info : kTokenQueueTable) {
    if (info.producer == producer && info.consumer == consumer) {
      return info.queue;
    }
  }
  return std::nullopt;
}

/// The neighbour of an executing unit in the load -> compute -> store order, or nullopt (load has
/// no previous unit, store no next).
constexpr std::optional<Unit> neighbour(Unit unit, bool next) {
  const std::size_t index = unitIndex(unit);
  if (index >= kExecutingUnits || (next ? index + 1 == kExecutingUnits : index == 0)) {
    return std::nullopt;
  }
  return unitAt(next ? index + 1 : index - 1);
}

/// The queue `flag` pops or pushes on executing unit `unit`, or nullopt when the unit has no
/// neighbour on that side (the flag is then reserved).
constexpr std::optional<TokenQueue> tokenQueueOf(Unit unit, TokenFlag flag) {
  const std::optional<Unit> other = neighbour(unit, isNext(flag));
  if (!other) {
    return std::nullopt;
  }
  return isPop(flag) ? tokenQueueBetween(*other, unit) : tokenQueueBetween(unit, *other);
}

/// The flag the consumer of `queue` sets to pop it.
constexpr TokenFlag popFlagOf(TokenQueue queue) {
  const TokenQueueInfo& info = tokenQueueInfo(queue);
  return neighbour(info.consumer, true) == info.producer ? TokenFlag::PopNext : TokenFlag::PopPrev;
}

/// The flag the producer of `queue` sets to push it.
constexpr TokenFlag pushFlagOf(TokenQueue queue) {
  const TokenQueueInfo& info = tokenQueueInfo(queue);
  return neighbour(info.producer, true) == info.consumer ? TokenFlag::PushNext
                                                         : TokenFlag::PushPrev;
}

/// The value of a flag in an instruction (0 when its opcode lacks the field).
std::int64_t tokenFlag(const Instruction& instruction, TokenFlag flag);

/// Sets a flag of an instruction to 1; an opcode without the field is left unchanged.
void setTokenFlag(Instruction& instruction, TokenFlag flag);

}  // namespace npu::isa
