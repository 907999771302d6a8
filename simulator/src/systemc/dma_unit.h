// The load and store units: DMA engines between DDR and the SRAMs (RTL npu_load_dma and
// npu_store_dma). Both run the same protocol (command, tokens, DDR port, transfer, tokens) on
// their own instruction queue, token queues and side of the DDR port.
#pragma once

#include <systemc>

#include "ddr_port.h"
#include "unit_protocol.h"

namespace npu::sim {

class DmaUnit : public ExecutingUnit {
 public:
  /// The DDR port (RTL rd_req_*/rd_* on the load engine, wr_* on the store engine).
  sc_core::sc_port<DdrPortIf> ddr;

  /// `unit` is isa::Unit::Load or isa::Unit::Store.
  DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, isa::Unit unit);

 private:
  void run();
};

}  // namespace npu::sim
