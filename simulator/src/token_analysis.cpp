// Abstract execution of the token protocol: finds deadlocks and builds vector clocks.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>

#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"
#include "npu/simulator/tokens.h"
#include "unit_state.h"

namespace npu::sim {

namespace {

using Clock = std::array<std::uint32_t, 3>;

/// The token protocol run abstractly: fetch dispatches instructions in order into the unit
/// queues; each unit runs its head instruction once the tokens it pops are there and the queues
/// it pushes have room; every token carries its pusher's vector clock.
class TokenMachine {
 public:
  TokenMachine(std::span<const isa::Instruction> instructions, const isa::NpuConfig& config)
      : m_instructions(instructions),
        m_queueDepth(static_cast<std::size_t>(config.instructionQueueDepth)),
        m_tokenDepth(static_cast<std::size_t>(config.tokenQueueDepth)) {
    const std::size_t n = instructions.size();
    m_order.unit.resize(n, kEndUnit);
    m_order.lane.resize(n, kEndUnit);
    m_order.besideFrom.resize(n, -1);
    m_order.certified.resize(n, 0);
    m_order.sequence.resize(n, 0);
    m_order.clock.resize(n, Clock{});
    m_ops.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      m_ops[i] = tokenOps(instructions[i]);
      if (!std::holds_alternative<isa::End>(instructions[i])) {
        m_order.unit[i] = static_cast<std::uint8_t>(unitIndex(isa::executingUnit(instructions[i])));
      }
    }
    // Compute's two sides: an overlapped ELTWISE may run beside the MAC side's instructions
    // since the last compute instruction that waited for both.
    std::int64_t barrier = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (m_order.unit[i] != isa::unitIndex(isa::Unit::Compute)) {
        m_order.lane[i] = m_order.unit[i];
        continue;
      }
      m_order.lane[i] = static_cast<std::uint8_t>(isa::laneOf(instructions[i]));
      if (isa::isOverlapped(instructions[i])) {
        m_order.besideFrom[i] = barrier;
      } else {
        barrier = static_cast<std::int64_t>(i);
      }
    }
  }

  /// Fetch dispatches in order while the target queue has room; END stops it. True on progress.
  bool dispatch() {
    const std::size_t n = m_instructions.size();
    bool progress = false;
    while (m_fetching && m_fetch < n) {
      if (m_order.unit[m_fetch] == kEndUnit) {
        m_fetching = false;
        break;
      }
      auto& queue = m_queues[m_order.unit[m_fetch]];
      if (queue.size() >= m_queueDepth) {
        break;
      }
      queue.push_back(m_fetch++);
      progress = true;
    }
    if (m_fetch >= n) {
      m_fetching = false;
    }
    return progress;
  }

  /// Unit `u` starts every head instruction its tokens (and, on compute, its sides) allow, and
  /// retires what can push. True on progress.
  bool execute(std::size_t u) {
    bool progress = false;
    while (true) {
      bool step = u == kCompute && retirePending();
      if (!m_queues[u].empty() && canStart(u, m_queues[u].front())) {
        start(u, m_queues[u].front());
        step = true;
      }
      if (!step) {
        return progress;
      }
      progress = true;
    }
  }

  /// Fetch has stopped, every queue is empty and nothing waits to push.
  bool done() const {
    return !m_fetching && m_queues[0].empty() && m_queues[1].empty() && m_queues[2].empty() &&
           !m_pending[0] && !m_pending[1];
  }

  TokenOrder takeOrder() { return std::move(m_order); }

  /// The deadlock fault: what every unit and fetch is waiting for.
  [[noreturn]] void throwDeadlock() const {
    std::array<UnitState, 3> units;
    for (std::size_t u = 0; u < 3; ++u) {
      // On compute, the oldest instruction waiting for room to push holds the unit.
      if (u == kCompute && (m_pending[0] || m_pending[1])) {
        const std::size_t i =
            std::min(m_pending[0].value_or(SIZE_MAX), m_pending[1].value_or(SIZE_MAX));
        UnitState& state = units[u];
        state.instruction = i;
        state.activity = UnitState::Activity::TokenFull;
        for (std::size_t p = 0; p < m_ops[i].pushCount; ++p) {
          if (m_tokens[static_cast<std::size_t>(m_ops[i].pushes[p])].size() >= m_tokenDepth) {
            state.tokens.push_back(m_ops[i].pushes[p]);
          }
        }
        continue;
      }
      if (m_queues[u].empty()) {
        continue;
      }
      const std::size_t i = m_queues[u].front();
      UnitState& state = units[u];
      state.instruction = i;
      for (std::size_t p = 0; p < m_ops[i].popCount; ++p) {
        if (m_tokens[static_cast<std::size_t>(m_ops[i].pops[p])].empty()) {
          state.activity = UnitState::Activity::TokenWait;
          state.tokens.push_back(m_ops[i].pops[p]);
        }
      }
      if (state.tokens.empty()) {
        state.activity = UnitState::Activity::TokenFull;
        for (std::size_t p = 0; p < m_ops[i].pushCount; ++p) {
          if (m_tokens[static_cast<std::size_t>(m_ops[i].pushes[p])].size() >= m_tokenDepth) {
            state.tokens.push_back(m_ops[i].pushes[p]);
          }
        }
      }
    }
    FetchState fetchState;
    fetchState.activity = m_fetching ? FetchState::Activity::QueueFull : FetchState::Activity::Done;
    fetchState.instruction = m_fetch;
    const std::int64_t first = oldestHeldInstruction(units, fetchState);
    throw SimFault(FaultKind::Deadlock, first,
                   fmt::format("deadlock fault at instruction {}: no unit can progress{}", first,
                               describeUnits(units, fetchState, m_instructions)));
  }

 private:
  static constexpr std::size_t kCompute = 1;

  bool popsAvailable(std::size_t i) const {
    const TokenOps& op = m_ops[i];
    for (std::size_t p = 0; p < op.popCount; ++p) {
      if (m_tokens[static_cast<std::size_t>(op.pops[p])].empty()) {
        return false;
      }
    }
    return true;
  }

  bool pushRoom(std::size_t i) const {
    const TokenOps& op = m_ops[i];
    for (std::size_t p = 0; p < op.pushCount; ++p) {
      if (m_tokens[static_cast<std::size_t>(op.pushes[p])].size() >= m_tokenDepth) {
        return false;
      }
    }
    return true;
  }

  /// Load and store start an instruction once its tokens are there and its pushes have room (it
  /// holds its unit until it has pushed, so that is the same). Compute starts on a side: the
  /// side must not hold an instruction still waiting to push, nor, unless the instruction is an
  /// overlapped ELTWISE, the other side (docs/timing.md).
  bool canStart(std::size_t u, std::size_t i) const {
    if (!popsAvailable(i)) {
      return false;
    }
    if (u != kCompute) {
      return pushRoom(i);
    }
    const std::size_t side = m_order.lane[i] == isa::kVectorLane ? 1 : 0;
    return !m_pending[side] && (m_order.besideFrom[i] >= 0 || !m_pending[1 - side]);
  }

  /// Pops instruction i's tokens, records its order, and pushes its tokens if there is room
  /// (on compute it waits on its side otherwise).
  void start(std::size_t u, std::size_t i) {
    const TokenOps& op = m_ops[i];
    Clock clock = m_unitClock[u];
    for (std::size_t p = 0; p < op.popCount; ++p) {
      auto& queue = m_tokens[static_cast<std::size_t>(op.pops[p])];
      for (std::size_t k = 0; k < 3; ++k) {
        clock[k] = std::max(clock[k], queue.front()[k]);
      }
      if (u == kCompute) {
        m_certified = std::max(m_certified, queue.front()[kCompute]);
      }
      queue.pop_front();
    }
    if (u == kCompute) {
      m_order.certified[i] = m_certified;
    }
    m_order.sequence[i] = m_executed[u]++;
    clock[u] = m_executed[u];
    m_order.clock[i] = clock;
    m_unitClock[u] = clock;
    m_queues[u].pop_front();
    if (pushRoom(i)) {
      push(i);
    } else {
      m_pending[m_order.lane[i] == isa::kVectorLane ? 1 : 0] = i;
    }
  }

  void push(std::size_t i) {
    const TokenOps& op = m_ops[i];
    for (std::size_t p = 0; p < op.pushCount; ++p) {
      m_tokens[static_cast<std::size_t>(op.pushes[p])].push_back(m_order.clock[i]);
    }
  }

  /// Compute's sides push what now has room. True on progress.
  bool retirePending() {
    bool progress = false;
    for (std::optional<std::size_t>& pending : m_pending) {
      if (pending && pushRoom(*pending)) {
        push(*pending);
        pending.reset();
        progress = true;
      }
    }
    return progress;
  }

  std::span<const isa::Instruction> m_instructions;
  std::size_t m_queueDepth;
  std::size_t m_tokenDepth;
  TokenOrder m_order;
  std::vector<TokenOps> m_ops;
  std::array<std::uint32_t, 3> m_executed{};
  std::array<Clock, 3> m_unitClock{};
  std::array<std::deque<std::size_t>, 3> m_queues;
  std::array<std::deque<Clock>, kTokenQueues> m_tokens;  // the pusher's clock rides on each token
  std::size_t m_fetch = 0;
  bool m_fetching = true;
  /// Per compute side (MAC, vector): the instruction started and still waiting to push.
  std::array<std::optional<std::size_t>, 2> m_pending;
  /// The compute prefix the tokens compute has popped so far prove ended.
  std::uint32_t m_certified = 0;
};

}  // namespace

TokenOrder analyzeTokens(std::span<const isa::Instruction> instructions,
                         const isa::NpuConfig& config) {
  TokenMachine machine(instructions, config);
  while (true) {
    bool progress = machine.dispatch();
    for (std::size_t u = 0; u < 3; ++u) {
      progress = machine.execute(u) || progress;
    }
    if (machine.done()) {
      return machine.takeOrder();
    }
    if (!progress) {
      machine.throwDeadlock();
    }
  }
}

}  // namespace npu::sim
