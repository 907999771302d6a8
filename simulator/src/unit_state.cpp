// Describing unit states for deadlock and watchdog messages.
#include "unit_state.h"

#include <fmt/format.h>

#include <algorithm>

namespace npu::sim {
namespace {

std::string tokenList(const std::vector<TokenQueue>& tokens, std::string_view article,
                      std::string_view noun) {
  std::string text;
  for (const TokenQueue token : tokens) {
    text += fmt::format("{}{} {} {}", text.empty() ? "" : " and ", article, tokenQueueName(token),
                        noun);
  }
  return text;
}

std::string describeUnit(std::string_view name, const UnitState& state,
                         std::span<const isa::Instruction> stream) {
  if (state.activity == UnitState::Activity::Idle) {
    return fmt::format("{} unit idle", name);
  }
  const std::string at = fmt::format("instruction {} ({})", state.instruction,
                                     isa::mnemonicOf(stream[state.instruction]));
  switch (state.activity) {
    case UnitState::Activity::SerialTurn:
      return fmt::format("{} unit waits at {} for the previous instruction (force-serial)", name,
                         at);
    case UnitState::Activity::TokenWait:
      return fmt::format("{} unit waits at {} for {}", name, at,
                         tokenList(state.tokens, "a", "token"));
    case UnitState::Activity::DdrPort:
      return state.portHolder.empty()
                 ? fmt::format("{} unit waits at {} for the DDR port", name, at)
                 : fmt::format("{} unit waits at {} for the DDR port, held by the {} unit", name,
                               at, state.portHolder);
    case UnitState::Activity::Busy:
      return fmt::format("{} unit runs {} until cycle {}", name, at, state.until);
    case UnitState::Activity::TokenFull:
      return fmt::format("{} unit waits at {} for {}", name, at,
                         tokenList(state.tokens, "room in the full", "token queue"));
    case UnitState::Activity::Idle:
      break;
  }
  return {};
}

std::string describeFetch(const FetchState& fetch, std::span<const isa::Instruction> stream) {
  switch (fetch.activity) {
    case FetchState::Activity::Reading:
      return fmt::format("fetch reads instruction {} until cycle {}", fetch.instruction,
                         fetch.until);
    case FetchState::Activity::QueueFull: {
      const isa::Instruction& instruction = stream[fetch.instruction];
      return fmt::format("fetch waits at instruction {} ({}) for room in the full {} queue",
                         fetch.instruction, isa::mnemonicOf(instruction),
                         isa::unitName(isa::executingUnit(instruction)));
    }
    case FetchState::Activity::Done:
      return fmt::format("fetch has reached END (instruction {})", fetch.instruction);
  }
  return {};
}

}  // namespace

std::string describeUnits(const std::array<UnitState, 3>& units, const FetchState& fetch,
                          std::span<const isa::Instruction> stream) {
  std::string text;
  for (std::size_t u = 0; u < units.size(); ++u) {
    text += "; " + describeUnit(isa::unitName(isa::unitAt(u)), units[u], stream);
  }
  return text + "; " + describeFetch(fetch, stream);
}

std::int64_t oldestHeldInstruction(const std::array<UnitState, 3>& units, const FetchState& fetch) {
  std::int64_t oldest = -1;
  const auto consider = [&oldest](std::size_t instruction) {
    const auto index = static_cast<std::int64_t>(instruction);
    oldest = oldest < 0 ? index : std::min(oldest, index);
  };
  for (const UnitState& unit : units) {
    if (unit.activity != UnitState::Activity::Idle) {
      consider(unit.instruction);
    }
  }
  if (fetch.activity == FetchState::Activity::QueueFull) {
    consider(fetch.instruction);
  }
  return oldest;
}

}  // namespace npu::sim
