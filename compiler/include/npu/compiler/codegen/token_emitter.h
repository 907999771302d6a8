// Builds an instruction stream whose dependency tokens are derived from what each instruction
// reads and writes, so lowering code only decides what to run where and never hand-writes tokens.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "npu/isa/footprint.h"
#include "npu/isa/instruction.h"
#include "npu/isa/shadow_pages.h"
#include "npu/isa/tokens.h"

namespace npu::compiler {

/// Collects instructions in program order. For every new instruction it finds the earlier ones
/// on other units it conflicts with (same byte, one a write), and makes the program order safe
/// with tokens: a direct token between neighbouring units, or a SYNC on the compute unit between
/// load and store. Per pair of queues only the newest needed producer is waited for; earlier ones
/// are ordered transitively, so every instruction pops at most one token per queue.
class TokenEmitter {
 public:
  /// One flag per token queue, indexed by isa::TokenQueue.
  using QueueSet = std::array<bool, isa::kTokenQueues>;

  /// Appends an instruction; `origin` tags it (e.g. the op index) for reports; SYNCs the emitter
  /// inserts carry the origin of the instruction that needed them.
  void emit(const isa::Instruction& instruction, std::int64_t origin);

  /// Appends END and returns the stream.
  std::vector<isa::Instruction> finish();

  /// Origin of every instruction of the stream (END: -1).
  [[nodiscard]] const std::vector<std::int64_t>& origins() const { return m_origins; }

 private:
  struct Shadow {
    std::int64_t writer = -1;
    std::array<std::int64_t, isa::kExecutingUnits> reader{-1, -1, -1};
    friend bool operator==(const Shadow&, const Shadow&) = default;
    friend auto operator<=>(const Shadow&, const Shadow&) = default;
  };

  /// Makes instruction `consumer` (not yet appended, on unit `unit`) wait for `producer`.
  void require(std::size_t unit, std::int64_t producer, std::int64_t origin, QueueSet& pops);
  std::size_t append(const isa::Instruction& instruction, std::int64_t origin);

  std::vector<isa::Instruction> m_stream;
  std::vector<std::int64_t> m_origins;
  std::vector<std::uint8_t> m_units;
  /// Per memory space and byte: the last writer and, since it, the last reader on each unit.
  std::array<isa::ShadowPages<Shadow>, 6> m_shadow;
  using Frontier = std::array<std::int64_t, isa::kExecutingUnits>;
  /// Newest instruction index known to have ended, per (consumer unit, producer unit): waited
  /// for directly, or through a chain of tokens (what the producer itself had waited for).
  std::array<Frontier, isa::kExecutingUnits> m_satisfied{
      {{-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}}};
  /// Per instruction: its unit's m_satisfied row when it started (after its own pops), so a
  /// unit that waits for it also knows everything it had waited for.
  std::vector<Frontier> m_frontiers;
};

}  // namespace npu::compiler
