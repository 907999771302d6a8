// What each unit is doing when a run stops: the words deadlock and watchdog messages use.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "npu/isa/instruction.h"
#include "npu/simulator/tokens.h"

namespace npu::sim {

/// What one executing unit (load, compute, store) is doing at one instant.
struct UnitState {
  enum class Activity : std::uint8_t {
    Idle,        ///< its instruction queue is empty
    SerialTurn,  ///< at `instruction`, waiting for the previous instruction (--force-serial)
    TokenWait,   ///< at `instruction`, waiting for a token in each of `tokens`
    DdrPort,     ///< at `instruction`, waiting for the DDR port, held by `portHolder` if named
    Busy,        ///< running `instruction` until cycle `until`
    TokenFull,   ///< finished `instruction`, waiting for room in the full `tokens` queue
  };
  UnitState() = default;
  UnitState(Activity what, std::size_t at, std::vector<TokenQueue> queues = {})
      : activity(what), instruction(at), tokens(std::move(queues)) {}

  Activity activity = Activity::Idle;
  std::size_t instruction = 0;
  std::vector<TokenQueue> tokens;
  std::uint64_t until = 0;
  std::string_view portHolder;
};

/// What fetch/dispatch is doing at one instant.
struct FetchState {
  enum class Activity : std::uint8_t {
    Reading,    ///< reading word `instruction`, available at cycle `until`
    QueueFull,  ///< holding `instruction`, waiting for room in its unit's full queue
    Done,       ///< has reached END, at `instruction`
  };
  Activity activity = Activity::Reading;
  std::size_t instruction = 0;
  std::uint64_t until = 0;
};

/// "; load unit runs instruction 0 (LOAD) until cycle 4160; compute unit waits at instruction 1
/// (CONV) for a load->compute token; store unit idle; fetch has reached END (instruction 3)":
/// every unit's state, in unit order, then fetch.
std::string describeUnits(const std::array<UnitState, 3>& units, const FetchState& fetch,
                          std::span<const isa::Instruction> stream);

/// The lowest instruction index a unit or fetch is held at (the oldest work not done), or -1.
std::int64_t oldestHeldInstruction(const std::array<UnitState, 3>& units, const FetchState& fetch);

}  // namespace npu::sim
