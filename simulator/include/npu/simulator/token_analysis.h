// Runs the dependency-token protocol abstractly (no data, no time) to find deadlocks and the
// happens-before order the tokens guarantee between instructions on different units.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "npu/isa/instruction.h"
#include "npu/isa/npu_config.h"

namespace npu::sim {

/// The unit (and lane) TokenOrder records for END, which runs on none of the executing units.
inline constexpr std::uint8_t kEndUnit = isa::kLanes;

/// Per instruction: its executing unit (isa::unitIndex; kEndUnit for END), its position on that
/// unit, and a vector clock: clock[u] = how many instructions of unit u are guaranteed to
/// have finished before it starts (its own unit counts itself).
///
/// The compute unit starts in order on two sides (docs/timing.md): `lane` tells them apart
/// (isa::laneOf), and `besideFrom` is, for an ELTWISE
/// with overlap = 1, the first compute instruction it may run beside: the last one before it
/// that waited for both sides (0 when there is none), from which on the MAC side's instructions
/// are not ordered before it; -1 for every other instruction. `certified` is, for a compute
/// instruction, how many compute instructions the tokens popped by it or by compute instructions
/// before it prove ended (a CONV can precede an overlapped ELTWISE through tokens that went round
/// the other units).
struct TokenOrder {
  std::vector<std::uint8_t> unit;
  std::vector<std::uint8_t> lane;
  std::vector<std::int64_t> besideFrom;
  std::vector<std::uint32_t> certified;
  std::vector<std::uint32_t> sequence;
  std::vector<std::array<std::uint32_t, 3>> clock;

  /// True when the tokens force instruction a to finish before instruction b starts.
  [[nodiscard]] bool happensBefore(std::size_t a, std::size_t b) const {
    if (unit[a] == unit[b]) {
      return a < b &&
             (besideFrom[b] < 0 || lane[a] == lane[b] ||
              static_cast<std::int64_t>(a) < besideFrom[b] || sequence[a] + 1 <= certified[b]);
    }
    return unit[a] < 3 && clock[b][unit[a]] >= sequence[a] + 1;
  }
};

/// Dispatches the stream in order into instruction queues of the configured depth and lets each
/// unit run whatever its tokens allow, with token queues of the configured depth. Throws a
/// deadlock SimFault naming every stuck unit and instruction when no unit can progress.
TokenOrder analyzeTokens(std::span<const isa::Instruction> instructions,
                         const isa::NpuConfig& config);

/// Checks that every pair of conflicting memory accesses (same byte, at least one write) on
/// different units is ordered by tokens in program order. Throws a hazard SimFault naming both
/// instructions, the memory and the address range of the first conflict.
void checkHazards(std::span<const isa::Instruction> instructions, const TokenOrder& order,
                  const isa::NpuConfig& config);

}  // namespace npu::sim
