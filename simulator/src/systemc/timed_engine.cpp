// The timed engine: elaborates the SystemC units of one NPU in a fresh simulation context, runs
// to completion (or the watchdog), and gathers DDR, cycles, statistics and trace.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "../engine_common.h"
#include "channels.h"
#include "compute_unit.h"
#include "ddr_memory.h"
#include "ddr_port.h"
#include "dma_unit.h"
#include "fetch_unit.h"
#include "npu/simulator/token_analysis.h"
#include "simulation_context.h"
#include "timed_context.h"
#include "unit_protocol.h"

namespace npu::sim {
namespace {

/// The NPU top level (RTL npu_top): fetch, the load and store DMA units, the compute unit and its
/// engines (MAC array, vector unit), the DDR port arbiter, and the channels between them, named as
/// npu_top.sv names its signals: the instruction queues q_load/q_compute/q_store and the token
/// queues tq_l2c, tq_c2l, tq_c2s, tq_s2c. The DDR is outside, behind the TLM-2.0 sockets rd and wr,
/// so the NPU embeds in any platform with a TLM memory.
class NpuTop : public sc_core::sc_module {
 public:
  /// The DDR read channel of the load engine (RTL rd_req_*/rd_*).
  tlm::tlm_initiator_socket<> rd;
  /// The DDR write channel of the store engine (RTL wr_*).
  tlm::tlm_initiator_socket<> wr;

  NpuTop(const sc_core::sc_module_name& name, TimedContext& context)
      : sc_core::sc_module(name),
        rd("rd"),
        wr("wr"),
        m_ddrPort("ddr_port"),
        m_fetch("fetch", context),
        m_load("load_dma", context, isa::Unit::Load),
        m_compute("compute", context),
        m_macArray("mac_array", context),
        m_vector("vector", context),
        m_store("store_dma", context, isa::Unit::Store) {
    const auto instructionDepth = static_cast<std::size_t>(context.config.instructionQueueDepth);
    const auto tokenDepth = static_cast<std::size_t>(context.config.tokenQueueDepth);
    const std::array<ExecutingUnit*, isa::kExecutingUnits> units{&m_load, &m_compute, &m_store};
    for (std::size_t u = 0; u < isa::kExecutingUnits; ++u) {
      const std::string queueName = "q_" + std::string(isa::unitName(isa::unitAt(u)));
      m_queues[u] = std::make_unique<CommandQueue>(queueName.c_str(), instructionDepth);
      m_fetch.q_push[u].bind(*m_queues[u]);
      units[u]->q_head.bind(*m_queues[u]);
    }
    for (const isa::TokenQueueInfo& info : isa::kTokenQueueTable) {
      auto& channel = m_tokens[static_cast<std::size_t>(info.queue)];
      channel =
          std::make_unique<TokenQueueChannel>(tokenQueuePortName(info.queue).c_str(), tokenDepth);
      units[isa::unitIndex(info.producer)]->tokenPort(info.queue).bind(*channel);
      units[isa::unitIndex(info.consumer)]->tokenPort(info.queue).bind(*channel);
    }
    m_compute.go_mac.bind(m_macArray);
    m_compute.go_vector.bind(m_vector);
    m_load.ddr_port.bind(m_ddrPort);
    m_store.ddr_port.bind(m_ddrPort);
    m_load.ddr.bind(rd);
    m_store.ddr.bind(wr);
    SC_HAS_PROCESS(NpuTop);
    SC_METHOD(shutDownDdrPort);
    sensitive << context.stopEvent;
    dont_initialize();
  }

  /// Whether fetch has reached END (it closes every queue then).
  [[nodiscard]] bool fetchDone() const {
    return std::ranges::all_of(m_queues, [](const auto& queue) { return queue->closed(); });
  }
  /// Whether fetch has reached END and every unit has drained its queue.
  [[nodiscard]] bool finished() const {
    return fetchDone() && m_load.finished() && m_compute.finished() && m_store.finished();
  }
  /// The executing units' states (naming the holder of the DDR port for a unit waiting for it)
  /// and fetch's, as watchdog and deadlock messages describe them.
  [[nodiscard]] std::string describeStates(const std::vector<isa::Instruction>& stream) const {
    std::array<UnitState, isa::kExecutingUnits> units = unitStates();
    const int owner = m_ddrPort.owner();
    for (UnitState& state : units) {
      if (state.activity == UnitState::Activity::DdrPort && owner >= 0) {
        state.portHolder = owner == DdrPort::kLoad ? "load" : "store";
      }
    }
    return describeUnits(units, m_fetch.state(), stream);
  }
  /// The oldest instruction a unit or fetch holds, or -1.
  [[nodiscard]] std::int64_t oldestHeld() const {
    return oldestHeldInstruction(unitStates(), m_fetch.state());
  }

 private:
  [[nodiscard]] std::array<UnitState, isa::kExecutingUnits> unitStates() const {
    return {m_load.state(), m_compute.state(), m_store.state()};
  }
  /// Releases the DDR port's waiters once the run stops.
  void shutDownDdrPort() { m_ddrPort.shutdown(); }

  std::array<std::unique_ptr<CommandQueue>, isa::kExecutingUnits> m_queues;
  std::array<std::unique_ptr<TokenQueueChannel>, kTokenQueues> m_tokens;
  DdrPort m_ddrPort;
  FetchUnit m_fetch;
  DmaUnit m_load;
  ComputeUnit m_compute;
  MacArray m_macArray;
  VectorUnit m_vector;
  DmaUnit m_store;
};

/// Runs are serialised because SystemC's kernel state is global.
std::mutex g_systemcMutex;

SimFault unfinishedFault(const NpuTop& top, const std::vector<isa::Instruction>& stream,
                         std::uint64_t stopped, bool pastLimit, const SimOptions& options) {
  const std::int64_t oldest = top.oldestHeld();
  if (pastLimit) {
    return SimFault(FaultKind::Watchdog, oldest,
                    fmt::format("watchdog fault: still running after {} cycles{}",
                                options.maxCycles, top.describeStates(stream)));
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
  std::uint64_t stopped = 0;
  {
    // The NPU reaches its DDR only through its sockets, as npu_top does through its ports.
    DdrMemory memory("ddr", ddr);
    NpuTop top("npu", ctx);
    top.rd.bind(memory.rd);
    top.wr.bind(memory.wr);
    sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
    sc_core::sc_start(cycles(options.maxCycles), sc_core::SC_EXIT_ON_STARVATION);
    // Stopping on starvation leaves the clock at the last event; work still scheduled past the
    // limit means the watchdog fired.
    const bool pastLimit = !ctx.stopping && sc_core::sc_pending_activity();
    stopped = ctx.stopping ? ctx.stopCycle : (pastLimit ? options.maxCycles : TimedContext::now());
    if (!ctx.fault && !top.finished()) {
      ctx.fault = unfinishedFault(top, stream, stopped, pastLimit, options);
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
