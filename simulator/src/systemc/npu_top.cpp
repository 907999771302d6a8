// NpuTop: elaborates the units and binds their ports to the channels.
#include "npu_top.h"

#include <fmt/format.h>

#include "unit_protocol.h"

namespace npu::sim {

NpuTop::NpuTop(const sc_core::sc_module_name& name, TimedContext& context)
    : sc_core::sc_module(name),
      rd("rd"),
      wr("wr"),
      m_context(context),
      m_ddrPort("ddr_port", context.runMode == RunMode::EachStart),
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

std::string NpuTop::describeStates(const std::vector<isa::Instruction>& stream) const {
  std::array<UnitState, isa::kExecutingUnits> units = unitStates();
  const int owner = m_ddrPort.owner();
  for (UnitState& state : units) {
    if (state.activity == UnitState::Activity::DdrPort && owner >= 0) {
      state.portHolder = owner == DdrPort::kLoad ? "load" : "store";
    }
  }
  return describeUnits(units, m_fetch.state(), stream);
}

SimFault NpuTop::unfinishedFault(std::uint64_t stopped, bool pastLimit, std::uint64_t limit) const {
  const std::int64_t oldest = oldestHeld();
  const std::vector<isa::Instruction>& stream = m_context.stream;
  if (pastLimit) {
    return SimFault(FaultKind::Watchdog, oldest,
                    fmt::format("watchdog fault: still running after {} cycles{}{}", limit,
                                m_context.options.maxCycles == 0
                                    ? " (4x the program's serial cycles + 1,000,000; "
                                      "--max-cycles sets another limit)"
                                    : "",
                                describeStates(stream)));
  }
  // The token analysis finds deadlocks before the run; this is the model's own safety net.
  return SimFault(FaultKind::Deadlock, oldest,
                  fmt::format("deadlock fault: no unit can progress at cycle {}{}", stopped,
                              describeStates(stream)));
}

void NpuTop::reset() {
  for (const auto& queue : m_queues) {
    queue->reset();
  }
  for (const auto& tokens : m_tokens) {
    tokens->reset();
  }
  m_ddrPort.reset();
  m_fetch.reset();
  m_load.reset();
  m_compute.reset();
  m_store.reset();
}

}  // namespace npu::sim
