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
///
/// An ELTWISE asking for overlap = 1 (to run beside the CONVs before it, docs/timing.md) keeps it
/// only when it conflicts with none of the MAC side's instructions it may run beside. It pushes
/// no token: an instruction on another unit that must wait for it waits for the next compute
/// instruction that waits for both sides instead (a SYNC when there is none yet).
class TokenEmitter {
 public:
  /// One flag per token queue, indexed by isa::TokenQueue.
  using QueueSet = std::array<bool, isa::kTokenQueues>;

  /// Appends an instruction; `origin` tags it (e.g. the op index) for reports; SYNCs the emitter
  /// inserts carry the origin of the instruction that needed them.
  void emit(const isa::Instruction& instruction, std::int64_t origin);

  /// The newest instruction already in the stream that `instruction` would have to wait for
  /// (it reads what that one writes, or writes what it reads or writes), -1 for none: a proxy for
  /// when its data is ready, for lowerings that order independent LOADs.
  [[nodiscard]] std::int64_t newestProducer(const isa::Instruction& instruction) const;
  /// The newest instruction of `unit` in the stream so far, -1 for none.
  [[nodiscard]] std::int64_t newestOf(isa::Unit unit) const;
  /// Makes compute wait, with a SYNC appended now, for the store unit's instructions up to
  /// `store` unless it already has: a later LOAD of what they wrote can then wait for this SYNC
  /// rather than for one appended behind everything compute has queued by then.
  void settleStores(std::int64_t store, std::int64_t origin);
  /// Appends END and returns the stream.
  std::vector<isa::Instruction> finish();

  /// Origin of every instruction of the stream (END: -1).
  [[nodiscard]] const std::vector<std::int64_t>& origins() const { return m_origins; }

 private:
  /// Readers are kept per lane (isa::laneOf).
  struct Shadow {
    std::int64_t writer = -1;
    std::array<std::int64_t, isa::kLanes> reader{-1, -1, -1, -1};
    friend bool operator==(const Shadow&, const Shadow&) = default;
    friend auto operator<=>(const Shadow&, const Shadow&) = default;
  };

  /// Per unit, the newest instruction that accesses conflict with (-1 for none).
  [[nodiscard]] std::array<std::int64_t, isa::kExecutingUnits> producersOf(
      const std::vector<isa::Access>& accesses) const;
  /// Makes instruction `consumer` (not yet appended, on unit `unit`) wait for `producer`.
  void require(std::size_t unit, std::int64_t producer, std::int64_t origin, QueueSet& pops);
  std::size_t append(const isa::Instruction& instruction, std::int64_t origin);
  /// Whether an overlapped ELTWISE with these accesses would conflict with a MAC-side
  /// instruction it may run beside.
  [[nodiscard]] bool conflictsBeside(const std::vector<isa::Access>& accesses) const;
  /// The instruction that pushes the token for `producer`: itself, or for an overlapped ELTWISE
  /// the next compute instruction that waits for both sides (appending a SYNC when none).
  std::int64_t tokenSource(std::int64_t producer, std::int64_t origin);
  /// Appends a SYNC on compute that waits for `producer` (of load or store), returning its index.
  std::size_t syncComputeWith(std::int64_t producer, std::int64_t origin);

  std::vector<isa::Instruction> m_stream;
  std::vector<std::int64_t> m_origins;
  std::vector<std::uint8_t> m_units;
  /// The last compute instruction that waited for both sides (every one but an overlapped
  /// ELTWISE); an overlapped ELTWISE may run beside the MAC side's instructions from it on.
  std::int64_t m_barrier = 0;
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
  /// Indices of the compute unit's instructions, in order (their frontiers only grow).
  std::vector<std::int64_t> m_computeIndices;
  /// Per unit, its newest instruction (-1 for none).
  std::array<std::int64_t, isa::kExecutingUnits> m_newest{-1, -1, -1};
};

}  // namespace npu::compiler
