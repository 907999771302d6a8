// FetchUnit: first word after the DDR latency, then one word per cycle.
#include "fetch_unit.h"

#include "npu/simulator/timing.h"

namespace npu::sim {

FetchUnit::FetchUnit(const sc_core::sc_module_name& name, TimedContext& context)
    : sc_core::sc_module(name), q_push("q_push", isa::kExecutingUnits), m_context(context) {
  SC_HAS_PROCESS(FetchUnit);
  SC_THREAD(run);
}

void FetchUnit::run() {
  m_context.serveRuns([this] { runProgram(); });
}

void FetchUnit::runProgram() {
  TimedContext& ctx = m_context;
  const auto latency = static_cast<std::uint64_t>(ctx.config.ddrLatencyCycles);
  m_state = {.activity = FetchState::Activity::Reading, .instruction = 0, .until = latency};
  sc_core::wait(ctx.cycles(latency), ctx.stopEvent);
  if (ctx.stopping) {
    return;
  }
  for (std::size_t i = 0; i < ctx.stream.size(); ++i) {
    const std::uint64_t start = ctx.now();
    if (std::holds_alternative<isa::End>(ctx.stream[i])) {
      m_state = {.activity = FetchState::Activity::Done, .instruction = i, .until = 0};
      ctx.finish("fetch", i, start, start);
      break;
    }
    CommandQueueIf& queue = *q_push[unitIndex(isa::executingUnit(ctx.stream[i]))].operator->();
    m_state = {.activity = FetchState::Activity::QueueFull, .instruction = i, .until = 0};
    while (queue.size() >= queue.depth() && !ctx.stopping) {
      sc_core::wait(queue.changed() | ctx.stopEvent);
    }
    if (ctx.stopping) {
      return;
    }
    const std::uint64_t dispatched = ctx.now();
    ctx.addStall("fetch", "queue_full", dispatched - start);
    queue.push(i);
    m_state = {.activity = FetchState::Activity::Reading,
               .instruction = i + 1,
               .until = dispatched + kFetchCyclesPerWord};
    sc_core::wait(ctx.cycles(kFetchCyclesPerWord), ctx.stopEvent);
    if (ctx.stopping) {
      return;
    }
    // One span per dispatched word; the gaps between spans are queue_full stalls.
    ctx.stats.units["fetch"].busyCycles += kFetchCyclesPerWord;
    ++ctx.stats.units["fetch"].instructions;
    ctx.addSpan("fetch", i, dispatched, dispatched + kFetchCyclesPerWord);
  }
  for (sc_core::sc_port<CommandQueueIf>& queue : q_push) {
    queue->close();
  }
}

}  // namespace npu::sim
