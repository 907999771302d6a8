// The executing units' common shape: an instruction-queue port, a port per token queue it pops or
// pushes, and the steps taken per instruction (wait for a command, pop its tokens, push its tokens
// when done, counting the cycles spent waiting).
#pragma once

#include <systemc>

#include <array>
#include <memory>
#include <optional>
#include <string>

#include "channels.h"
#include "timed_context.h"

namespace npu::sim {

class ExecutingUnit : public sc_core::sc_module {
 public:
  /// The head of this unit's instruction queue (RTL q_head_word[u], q_pop[u]).
  sc_core::sc_port<CommandQueueIf> q_head;

  /// The port of token queue `queue` (named tq_l2c, tq_c2l, ... after the RTL's TQ_ indices);
  /// only the queues this unit produces or consumes have one, and each must be bound.
  [[nodiscard]] sc_core::sc_port<TokenQueueIf>& tokenPort(TokenQueue queue);
  /// Whether this unit has a port for `queue`.
  [[nodiscard]] bool hasTokenPort(TokenQueue queue) const;
  /// What the unit is doing now, for watchdog and deadlock messages.
  [[nodiscard]] virtual UnitState state() const { return m_state; }
  /// Whether the unit has drained its queue after fetch reached END (or the run stopped).
  [[nodiscard]] bool finished() const { return m_finished; }
  /// Forgets the previous run (between runs, while the unit's thread waits for the next).
  void reset();

 protected:
  ExecutingUnit(const sc_core::sc_module_name& name, TimedContext& context, isa::Unit unit);

  /// Waits for the next instruction; nullopt once fetch is done and the queue is empty, or the
  /// run stops. Idle cycles count as the "idle" stall unless `countIdle` is false (the compute
  /// unit, which may still run an instruction while it waits, counts its own).
  std::optional<std::size_t> waitForCommand(bool countIdle = true);
  /// Waits until every token instruction i pops is available, consumes them, and removes i from
  /// the queue (the unit has started it). False when the run is stopping. The wait counts as the
  /// "token_wait" stall unless `countStall` is false.
  bool popTokens(std::size_t i, bool countStall = true);
  /// Records that this unit runs instruction i for `cycleCount` cycles from now (fault messages).
  void markBusy(std::size_t i, std::uint64_t cycleCount);
  /// Pushes every token instruction i pushes, waiting for room in a full token queue. False when
  /// the run is stopping. The wait counts as the "token_full" stall unless `countStall` is
  /// false; what it waits for goes to `state` (the unit's state by default).
  bool pushTokens(std::size_t i, bool countStall = true, UnitState* state = nullptr);
  /// Marks this unit's thread as returned after draining its queue.
  void markFinished();

  TimedContext& m_context;
  isa::Unit m_unit;
  std::size_t m_index;
  /// The unit's name in statistics and traces ("load", "compute", "store").
  std::string m_name;
  UnitState m_state;

 private:
  TokenQueueIf& tokens(TokenQueue queue);
  bool m_finished = false;
  std::array<std::unique_ptr<sc_core::sc_port<TokenQueueIf>>, kTokenQueues> m_tokenPorts;
};

/// "tq_l2c": the SystemC name of token queue `queue`'s channel and ports.
std::string tokenQueuePortName(TokenQueue queue);

}  // namespace npu::sim
