// The timed engine: elaborates the SystemC units of one NPU in a fresh simulation context, runs
// to completion (or the watchdog), and gathers DDR, cycles, statistics and trace.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "../engine_common.h"
#include "ddr_memory.h"
#include "npu/simulator/timing.h"
#include "npu_top.h"
#include "simulation_context.h"
#include "timed_context.h"

namespace npu::sim {
namespace {

/// Runs are serialised because SystemC's kernel state is global.
std::mutex g_systemcMutex;

void runKernel(const isa::NpuConfig& config, isa::DdrImage& ddr,
               const std::vector<isa::Instruction>& stream, const SimOptions& options,
               SimResult& result);

}  // namespace

SimResult runTimed(const isa::NpuConfig& config, isa::DdrImage ddr,
                   const std::vector<isa::Instruction>& stream, const SimOptions& options) {
  SimResult result;
  result.stats.mode = "timed";
  try {
    checkBeforeTimedRun(stream, config, options);
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
  {
    // The NPU reaches its DDR only through its sockets, as npu_top does through its ports.
    DdrMemory memory("ddr", ddr);
    NpuTop top("npu", ctx);
    top.rd.bind(memory.rd);
    top.wr.bind(memory.wr);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_start(ctx.cycles(limit), sc_core::SC_EXIT_ON_STARVATION);
    // Stopping on starvation leaves the clock at the last event; work still scheduled past the
    // limit means the watchdog fired.
    const bool pastLimit = !ctx.stopping && sc_core::sc_pending_activity();
    const std::uint64_t stopped = ctx.stopping ? ctx.stopCycle : (pastLimit ? limit : ctx.now());
    if (!ctx.fault && !top.finished()) {
      ctx.fault = top.unfinishedFault(stopped, pastLimit, limit);
    }
    // Let every thread return normally so no coroutine is left suspended.
    ctx.stop();
    ctx.stopCycle = stopped;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
  }

  ctx.closeStats();
  result.stats = std::move(ctx.stats);
  result.trace = std::move(ctx.trace);
  result.endCycles = std::move(ctx.endCycles);
  result.fault = ctx.fault;
}

}  // namespace

}  // namespace npu::sim
