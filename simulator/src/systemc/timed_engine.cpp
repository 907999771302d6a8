// The timed engine: elaborates the SystemC units of one NPU in a fresh simulation context, runs
// to completion (or the watchdog), and gathers DDR, cycles, statistics and trace.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "../engine_common.h"
#include "ddr_memory.h"
#include "npu/simulator/timing.h"
#include "npu/simulator/token_analysis.h"
#include "npu_top.h"
#include "simulation_context.h"
#include "timed_context.h"

namespace npu::sim {
namespace {

/// Runs are serialised because SystemC's kernel state is global.
std::mutex g_systemcMutex;

SimFault unfinishedFault(const NpuTop& top, const std::vector<isa::Instruction>& stream,
                         std::uint64_t stopped, bool pastLimit, std::uint64_t limit,
                         const SimOptions& options) {
  const std::int64_t oldest = top.oldestHeld();
  if (pastLimit) {
    return SimFault(
        FaultKind::Watchdog, oldest,
        fmt::format("watchdog fault: still running after {} cycles{}{}", limit,
                    options.maxCycles == 0 ? " (4x the program's serial cycles + 1,000,000; "
                                             "--max-cycles sets another limit)"
                                           : "",
                    top.describeStates(stream)));
  }
  // The token analysis finds deadlocks before the run; this is the model's own safety net.
  return SimFault(FaultKind::Deadlock, oldest,
                  fmt::format("deadlock fault: no unit can progress at cycle {}{}", stopped,
                              top.describeStates(stream)));
}

void runKernel(const isa::NpuConfig& config, isa::DdrImage& ddr,
               const std::vector<isa::Instruction>& stream, const SimOptions& options,
               SimResult& result);

}  // namespace

SimResult runTimed(const isa::NpuConfig& config, isa::DdrImage ddr,
                   const std::vector<isa::Instruction>& stream, const SimOptions& options) {
  SimResult result;
  result.stats.mode = "timed";
  try {
    const TokenOrder order = analyzeTokens(stream, config);
    if (options.checkHazards) {
      checkHazards(stream, order, config);
    }
  } catch (const SimFault& fault) {
    result.fault = fault;
    result.ddr = std::move(ddr);
    return result;
  }

  // The SystemC kernel runs on a thread of its own: its coroutines switch stacks, and keeping
  // that off the caller's thread keeps the caller's stack bookkeeping (and AddressSanitizer's)
  // intact. Runs are serialised because SystemC's kernel state is global.
  const std::lock_guard<std::mutex> lock(g_systemcMutex);
  std::exception_ptr failure;
  std::thread kernel([&] {
    try {
      runKernel(config, ddr, stream, options, result);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  kernel.join();
  if (failure) {
    std::rethrow_exception(failure);
  }
  result.ddr = std::move(ddr);
  return result;
}

namespace {

void runKernel(const isa::NpuConfig& config, isa::DdrImage& ddr,
               const std::vector<isa::Instruction>& stream, const SimOptions& options,
               SimResult& result) {
  const SimulationContext simulationContext;
  TimedContext ctx(config, stream, options);
  const std::uint64_t limit =
      options.maxCycles != 0 ? options.maxCycles : cycleBudget(stream, config);
  std::uint64_t stopped = 0;
  {
    // The NPU reaches its DDR only through its sockets, as npu_top does through its ports.
    DdrMemory memory("ddr", ddr);
    NpuTop top("npu", ctx);
    top.rd.bind(memory.rd);
    top.wr.bind(memory.wr);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_start(cycles(limit), sc_core::SC_EXIT_ON_STARVATION);
    // Stopping on starvation leaves the clock at the last event; work still scheduled past the
    // limit means the watchdog fired.
    const bool pastLimit = !ctx.stopping && sc_core::sc_pending_activity();
    stopped = ctx.stopping ? ctx.stopCycle : (pastLimit ? limit : TimedContext::now());
    if (!ctx.fault && !top.finished()) {
      ctx.fault = unfinishedFault(top, stream, stopped, pastLimit, limit, options);
    }
    // Let every thread return normally so no coroutine is left suspended.
    ctx.stop();
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }

  result.stats = std::move(ctx.stats);
  result.stats.mode = "timed";
  std::uint64_t total = 0;
  for (const std::uint64_t end : ctx.endCycles) {
    total = std::max(total, end);
  }
  result.stats.totalCycles = ctx.fault ? stopped : total;
  if (result.stats.totalCycles > 0) {
    result.stats.macUtilization =
        static_cast<double>(result.stats.macs) /
        (static_cast<double>(result.stats.totalCycles) * static_cast<double>(config.macRows) *
         static_cast<double>(config.macCols));
  }
  result.trace = std::move(ctx.trace);
  result.endCycles = std::move(ctx.endCycles);
  result.fault = ctx.fault;
}

}  // namespace

}  // namespace npu::sim
