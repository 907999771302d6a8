// Abstract execution of the token protocol: finds deadlocks and builds vector clocks.
#include <fmt/format.h>

#include <deque>

#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"
#include "npu/simulator/tokens.h"
#include "unit_state.h"

namespace npu::sim {

TokenOrder analyzeTokens(std::span<const isa::Instruction> instructions,
                         const isa::NpuConfig& config) {
  using Clock = std::array<std::uint32_t, 3>;
  const std::size_t n = instructions.size();
  TokenOrder order;
  order.unit.resize(n, kEndUnit);
  order.sequence.resize(n, 0);
  order.clock.resize(n, Clock{});

  std::array<std::uint32_t, 3> executed{};
  std::array<Clock, 3> unitClock{};
  std::array<std::deque<std::size_t>, 3> queues;
  std::array<std::deque<Clock>, kTokenQueues> tokens;  // the pusher's clock rides on each token
  const auto queueDepth = static_cast<std::size_t>(config.instructionQueueDepth);
  const auto tokenDepth = static_cast<std::size_t>(config.tokenQueueDepth);
  std::vector<TokenOps> ops(n);
  for (std::size_t i = 0; i < n; ++i) {
    ops[i] = tokenOps(instructions[i]);
    if (!std::holds_alternative<isa::End>(instructions[i])) {
      order.unit[i] = static_cast<std::uint8_t>(unitIndex(isa::executingUnit(instructions[i])));
    }
  }

  std::size_t fetch = 0;
  bool fetching = true;
  while (true) {
    bool progress = false;
    // Fetch dispatches in order while the target queue has room; END stops it.
    while (fetching && fetch < n) {
      if (order.unit[fetch] == kEndUnit) {
        fetching = false;
        break;
      }
      auto& queue = queues[order.unit[fetch]];
      if (queue.size() >= queueDepth) {
        break;
      }
      queue.push_back(fetch++);
      progress = true;
    }
    if (fetch >= n) {
      fetching = false;
    }
    for (std::size_t u = 0; u < 3; ++u) {
      while (!queues[u].empty()) {
        const std::size_t i = queues[u].front();
        const TokenOps& op = ops[i];
        bool ready = true;
        for (std::size_t p = 0; p < op.popCount; ++p) {
          ready = ready && !tokens[static_cast<std::size_t>(op.pops[p])].empty();
        }
        for (std::size_t p = 0; p < op.pushCount; ++p) {
          ready = ready && tokens[static_cast<std::size_t>(op.pushes[p])].size() < tokenDepth;
        }
        if (!ready) {
          break;
        }
        Clock clock = unitClock[u];
        for (std::size_t p = 0; p < op.popCount; ++p) {
          auto& queue = tokens[static_cast<std::size_t>(op.pops[p])];
          for (std::size_t k = 0; k < 3; ++k) {
            clock[k] = std::max(clock[k], queue.front()[k]);
          }
          queue.pop_front();
        }
        order.sequence[i] = executed[u]++;
        clock[u] = executed[u];
        order.clock[i] = clock;
        unitClock[u] = clock;
        for (std::size_t p = 0; p < op.pushCount; ++p) {
          tokens[static_cast<std::size_t>(op.pushes[p])].push_back(clock);
        }
        queues[u].pop_front();
        progress = true;
      }
    }
    const bool drained = queues[0].empty() && queues[1].empty() && queues[2].empty();
    if (!fetching && drained) {
      return order;
    }
    if (!progress) {
      break;
    }
  }

  // Deadlock: describe what every unit and fetch is waiting for.
  std::array<UnitState, 3> units;
  for (std::size_t u = 0; u < 3; ++u) {
    if (queues[u].empty()) {
      continue;
    }
    const std::size_t i = queues[u].front();
    UnitState& state = units[u];
    state.instruction = i;
    for (std::size_t p = 0; p < ops[i].popCount; ++p) {
      if (tokens[static_cast<std::size_t>(ops[i].pops[p])].empty()) {
        state.activity = UnitState::Activity::TokenWait;
        state.tokens.push_back(ops[i].pops[p]);
      }
    }
    if (state.tokens.empty()) {
      state.activity = UnitState::Activity::TokenFull;
      for (std::size_t p = 0; p < ops[i].pushCount; ++p) {
        if (tokens[static_cast<std::size_t>(ops[i].pushes[p])].size() >= tokenDepth) {
          state.tokens.push_back(ops[i].pushes[p]);
        }
      }
    }
  }
  FetchState fetchState;
  fetchState.activity = fetching ? FetchState::Activity::QueueFull : FetchState::Activity::Done;
  fetchState.instruction = fetch;
  const std::int64_t first = oldestHeldInstruction(units, fetchState);
  throw SimFault(FaultKind::Deadlock, first,
                 fmt::format("deadlock fault at instruction {}: no unit can progress{}", first,
                             describeUnits(units, fetchState, instructions)));
}

}  // namespace npu::sim
