// DmaUnit: LOAD or STORE (and SYNC on this unit), holding the DDR port for a whole transfer.
#include "dma_unit.h"

#include "npu/simulator/timing.h"
#include "unit_protocol.h"

namespace npu::sim {

DmaUnit::DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, DdrPort& port,
                 std::size_t unit)
    : sc_core::sc_module(name),
      m_context(context),
      m_port(port),
      m_unit(unit),
      m_name(isa::unitName(isa::unitAt(unit))) {
  SC_HAS_PROCESS(DmaUnit);
  SC_THREAD(run);
}

void DmaUnit::run() {
  TimedContext& ctx = m_context;
  while (const auto next = waitForCommand(ctx, m_unit, m_name)) {
    const std::size_t i = *next;
    if (!popTokens(ctx, m_unit, i, m_name)) {
      return;
    }
    const bool transfers = !std::holds_alternative<isa::Sync>(ctx.stream[i]);
    if (transfers) {
      const std::uint64_t since = TimedContext::now();
      ctx.unitState[m_unit] = UnitState(UnitState::Activity::DdrPort, i);
      if (!m_port.acquire(isa::unitAt(m_unit) == isa::Unit::Load ? DdrPort::kLoad
                                                                 : DdrPort::kStore)) {
        return;
      }
      ctx.addStall(m_name, "ddr_port", TimedContext::now() - since);
    }
    const std::uint64_t start = TimedContext::now();
    if (!ctx.execute(i)) {
      return;
    }
    const std::uint64_t duration = instructionCycles(ctx.stream[i], ctx.config);
    markBusy(ctx, m_unit, i, duration);
    sc_core::wait(cycles(duration));
    if (ctx.stopping) {
      return;
    }
    if (transfers) {
      m_port.release();
    }
    const std::uint64_t end = TimedContext::now();
    if (!pushTokens(ctx, m_unit, i, m_name)) {
      return;
    }
    ctx.finish(m_name, i, start, end);
    ctx.advanceSerial(i);
  }
  ctx.unitFinished[m_unit] = true;
}

}  // namespace npu::sim
