// The timed engine: elaborates the SystemC units of one NPU in a fresh simulation context, runs
// to completion (or the watchdog), and gathers DDR, cycles, statistics and trace.
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <mutex>

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
        m_load("load", context, m_ddrPort, 0),
        m_compute("compute", context),
        m_store("store", context, m_ddrPort, 2) {}

 private:
  DdrPort m_ddrPort;
  FetchUnit m_fetch;
  DmaUnit m_load;
  ComputeUnit m_compute;
  DmaUnit m_store;
};

/// SystemC 2.3 cannot elaborate a second design in a finished context, so every run gets a new
/// one. Old contexts are kept reachable (SystemC does not support deleting them safely).
std::mutex g_systemcMutex;
std::vector<std::unique_ptr<sc_core::sc_simcontext>> g_retiredContexts;

void freshSimulationContext() {
  static bool quiet = [] {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
    return true;
  }();
  (void)quiet;
  auto context = std::make_unique<sc_core::sc_simcontext>();
  sc_core::sc_curr_simcontext = context.get();
  sc_core::sc_default_global_context = context.get();
  g_retiredContexts.push_back(std::move(context));
}

std::string inFlight(const TimedContext& ctx) {
  static constexpr std::array<std::string_view, 3> kNames = {"load", "compute", "store"};
  std::string text;
  for (std::size_t u = 0; u < 3; ++u) {
    if (ctx.unitCurrent[u] >= 0) {
      text +=
          fmt::format("; {} unit at instruction {} ({})", kNames[u], ctx.unitCurrent[u],
                      isa::mnemonicOf(ctx.stream[static_cast<std::size_t>(ctx.unitCurrent[u])]));
    }
  }
  return text;
}

}  // namespace

SimResult runTimed(const isa::NpuConfig& config, DdrImage ddr,
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

  const std::lock_guard<std::mutex> lock(g_systemcMutex);
  freshSimulationContext();
  TimedContext ctx(config, stream, ddr, options);
  {
    NpuTop top("npu", ctx);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_start(cycles(options.maxCycles));
  }
  const std::uint64_t stopped = TimedContext::now();
  const bool finished =
      ctx.fetchDone && ctx.unitFinished[0] && ctx.unitFinished[1] && ctx.unitFinished[2];
  if (!ctx.fault && !finished) {
    if (stopped >= options.maxCycles) {
      ctx.fault = SimFault(FaultKind::Watchdog, ctx.unitCurrent[1] >= 0 ? ctx.unitCurrent[1] : -1,
                           fmt::format("watchdog fault: still running after {} cycles{}",
                                       options.maxCycles, inFlight(ctx)));
    } else {
      ctx.fault = SimFault(FaultKind::Deadlock, -1,
                           fmt::format("deadlock fault: no unit can progress at cycle {}{}",
                                       stopped, inFlight(ctx)));
    }
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
  result.ddr = std::move(ddr);
  return result;
}

}  // namespace npu::sim
