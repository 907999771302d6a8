// NpuTop: the SystemC NPU (RTL npu_top), its units and the channels between them.
#pragma once

#include <systemc>
#include <tlm>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "channels.h"
#include "compute_unit.h"
#include "ddr_port.h"
#include "dma_unit.h"
#include "fetch_unit.h"
#include "timed_context.h"

namespace npu::sim {

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

  NpuTop(const sc_core::sc_module_name& name, TimedContext& context);

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
  [[nodiscard]] std::string describeStates(const std::vector<isa::Instruction>& stream) const;
  /// The oldest instruction a unit or fetch holds, or -1.
  [[nodiscard]] std::int64_t oldestHeld() const {
    return oldestHeldInstruction(unitStates(), m_fetch.state());
  }
  /// The fault of a run that did not finish: a watchdog fault when it was still going at
  /// `limit` cycles (`pastLimit`), a deadlock fault at cycle `stopped` otherwise.
  [[nodiscard]] SimFault unfinishedFault(std::uint64_t stopped, bool pastLimit,
                                         std::uint64_t limit) const;
  /// Empties the queues and the DDR port and forgets every unit's state, for the next run of a
  /// RunMode::EachStart context (no unit thread may be running).
  void reset();
  /// Ends a RunMode::EachStart NPU: the DDR port's thread returns (TimedContext::close ends the
  /// units').
  void close() { m_ddrPort.close(); }

 private:
  [[nodiscard]] std::array<UnitState, isa::kExecutingUnits> unitStates() const {
    return {m_load.state(), m_compute.state(), m_store.state()};
  }
  /// Releases the DDR port's waiters once the run stops.
  void shutDownDdrPort() { m_ddrPort.shutdown(); }

  TimedContext& m_context;
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

}  // namespace npu::sim
