// Abstract execution of the token protocol: finds deadlocks and builds vector clocks.
#include <fmt/format.h>

#include <deque>

#include "npu/simulator/sim_fault.h"
#include "npu/simulator/token_analysis.h"
#include "npu/simulator/tokens.h"

namespace npu::sim {

TokenOrder analyzeTokens(std::span<const isa::Instruction> instructions,
                         const isa::NpuConfig& config) {
  using Clock = std::array<std::uint32_t, 3>;
  const std::size_t n = instructions.size();
  TokenOrder order;
  order.unit.resize(n, 3);
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
      if (order.unit[fetch] == 3) {
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

  // Deadlock: describe every stuck unit.
  static constexpr std::array<std::string_view, 3> kUnitNames = {"load", "compute", "store"};
  std::string detail;
  std::int64_t first = -1;
  for (std::size_t u = 0; u < 3; ++u) {
    if (queues[u].empty()) {
      continue;
    }
    const std::size_t i = queues[u].front();
    first = first < 0 ? static_cast<std::int64_t>(i) : std::min<std::int64_t>(first, i);
    std::string waits;
    for (std::size_t p = 0; p < ops[i].popCount; ++p) {
      if (tokens[static_cast<std::size_t>(ops[i].pops[p])].empty()) {
        waits += fmt::format("{}a {} token", waits.empty() ? "" : " and ",
                             tokenQueueName(ops[i].pops[p]));
      }
    }
    for (std::size_t p = 0; p < ops[i].pushCount; ++p) {
      if (tokens[static_cast<std::size_t>(ops[i].pushes[p])].size() >= tokenDepth) {
        waits += fmt::format("{}room in the full {} token queue", waits.empty() ? "" : " and ",
                             tokenQueueName(ops[i].pushes[p]));
      }
    }
    detail += fmt::format("; {} unit waits at instruction {} ({}) for {}", kUnitNames[u], i,
                          isa::mnemonicOf(instructions[i]), waits);
  }
  if (fetching && fetch < n) {
    first = first < 0 ? static_cast<std::int64_t>(fetch) : first;
    detail += fmt::format("; fetch waits at instruction {} ({}) for room in the {} queue", fetch,
                          isa::mnemonicOf(instructions[fetch]), kUnitNames[order.unit[fetch]]);
  }
  throw SimFault(
      FaultKind::Deadlock, first,
      fmt::format("deadlock fault at instruction {}: no unit can progress{}", first, detail));
}

}  // namespace npu::sim
