// DmaUnit: LOAD or STORE (and SYNC on this unit), holding the DDR port for a whole transfer.
#include "dma_unit.h"

#include <stdexcept>

#include "npu/simulator/timing.h"

namespace npu::sim {

DmaUnit::DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, isa::Unit unit)
    : ExecutingUnit(name, context, unit), ddr("ddr") {
  if (unit != isa::Unit::Load && unit != isa::Unit::Store) {
    throw std::logic_error("a DMA unit is the load or the store unit");
  }
  SC_HAS_PROCESS(DmaUnit);
  SC_THREAD(run);
}

void DmaUnit::run() {
  TimedContext& ctx = m_context;
  const DdrPortIf::Requester requester =
      m_unit == isa::Unit::Load ? DdrPortIf::kLoad : DdrPortIf::kStore;
  while (const auto next = waitForCommand()) {
    const std::size_t i = *next;
    if (!popTokens(i)) {
      return;
    }
    const bool transfers = !std::holds_alternative<isa::Sync>(ctx.stream[i]);
    if (transfers) {
      const std::uint64_t since = TimedContext::now();
      ctx.unitState[m_index] = UnitState(UnitState::Activity::DdrPort, i);
      // The port shuts down a delta cycle after the run stops; a grant in between is refused.
      if (!ddr->acquire(requester) || ctx.stopping) {
        return;
      }
      ctx.addStall(m_name, "ddr_port", TimedContext::now() - since);
    }
    const std::uint64_t start = TimedContext::now();
    if (!ctx.execute(i)) {
      return;
    }
    const std::uint64_t duration = instructionCycles(ctx.stream[i], ctx.config);
    markBusy(i, duration);
    sc_core::wait(cycles(duration));
    if (ctx.stopping) {
      return;
    }
    if (transfers) {
      ddr->release();
    }
    const std::uint64_t end = TimedContext::now();
    if (!pushTokens(i)) {
      return;
    }
    ctx.finish(m_name, i, start, end);
    ctx.advanceSerial(i);
  }
  markFinished();
}

}  // namespace npu::sim
