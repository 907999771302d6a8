// The timed engine: elaborates the SystemC units of one NPU in a fresh simulation context, runs
// to completion (or the watchdog), and gathers DDR, cycles, statistics and trace.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "../engine_common.h"
#include "compute_unit.h"
#include "ddr_port.h"
#include "dma_unit.h"
#include "fetch_unit.h"
#include "npu/simulator/token_analysis.h"
#include "timed_context.h"

namespace npu::sim {
namespace {

/// The NPU top level: fetch, load, compute (MAC array + vector), store and the DDR port.
class NpuTop : public sc_core::sc_module {
 public:
  NpuTop(const sc_core::sc_module_name& name, TimedContext& context)
      : sc_core::sc_module(name),
        m_ddrPort("ddr_port"),
        m_fetch("fetch", context),
        m_load("load", context, m_ddrPort, isa::unitIndex(isa::Unit::Load)),
        m_compute("compute", context),
        m_store("store", context, m_ddrPort, isa::unitIndex(isa::Unit::Store)) {
    context.ddrPort = &m_ddrPort;
  }

 private:
  DdrPort m_ddrPort;
  FetchUnit m_fetch;
  DmaUnit m_load;
  ComputeUnit m_compute;
  DmaUnit m_store;
};

/// SystemC 2.3 cannot elaborate a second design in a finished context, so every run gets its own
/// context, deleted (with the coroutines of any thread still waiting) when the run is over.
std::mutex g_systemcMutex;

class SimulationContext {
 public:
  SimulationContext() {
    static const bool quiet = [] {
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
      return true;
    }();
    (void)quiet;
    m_context = std::make_unique<sc_core::sc_simcontext>();
    sc_core::sc_curr_simcontext = m_context.get();
    sc_core::sc_default_global_context = m_context.get();
  }
  SimulationContext(const SimulationContext&) = delete;
  SimulationContext& operator=(const SimulationContext&) = delete;
  ~SimulationContext() {
    m_context.reset();
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
  }

 private:
  std::unique_ptr<sc_core::sc_simcontext> m_context;
};

/// Every unit's state and fetch's, naming the holder of the DDR port for a unit waiting for it.
std::string unitStates(const TimedContext& ctx) {
  std::array<UnitState, 3> units = ctx.unitState;
  const int owner = ctx.ddrPort != nullptr ? ctx.ddrPort->owner() : -1;
  for (UnitState& state : units) {
    if (state.activity == UnitState::Activity::DdrPort && owner >= 0) {
      state.portHolder = owner == DdrPort::kLoad ? "load" : "store";
    }
  }
  return describeUnits(units, ctx.fetchState, ctx.stream);
}

SimFault unfinishedFault(const TimedContext& ctx, std::uint64_t stopped, bool pastLimit,
                         const SimOptions& options) {
  const std::int64_t oldest = oldestHeldInstruction(ctx.unitState, ctx.fetchState);
  if (pastLimit) {
    return SimFault(FaultKind::Watchdog, oldest,
                    fmt::format("watchdog fault: still running after {} cycles{}",
                                options.maxCycles, unitStates(ctx)));
  }
  // The token analysis finds deadlocks before the run; this is the model's own safety net.
  return SimFault(
      FaultKind::Deadlock, oldest,
      fmt::format("deadlock fault: no unit can progress at cycle {}{}", stopped, unitStates(ctx)));
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
  TimedContext ctx(config, stream, ddr, options);
  std::uint64_t stopped = 0;
  {
    NpuTop top("npu", ctx);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_start(cycles(options.maxCycles), sc_core::SC_EXIT_ON_STARVATION);
    // Stopping on starvation leaves the clock at the last event; work still scheduled past the
    // limit means the watchdog fired.
    const bool pastLimit = !ctx.stopping && sc_core::sc_pending_activity();
    stopped = ctx.stopping ? ctx.stopCycle : (pastLimit ? options.maxCycles : TimedContext::now());
    const bool finished =
        ctx.fetchDone && ctx.unitFinished[0] && ctx.unitFinished[1] && ctx.unitFinished[2];
    if (!ctx.fault && !finished) {
      ctx.fault = unfinishedFault(ctx, stopped, pastLimit, options);
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
