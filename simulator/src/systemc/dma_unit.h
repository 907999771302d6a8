// The load and store units: DMA engines between DDR and the SRAMs (RTL npu_load_dma and
// npu_store_dma). Both run the same protocol (command, tokens, DDR port, transfer, tokens) on
// their own instruction queue, token queues and side of the DDR port.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "ddr_port.h"
#include "unit_protocol.h"

namespace npu::sim {

class DmaUnit : public ExecutingUnit {
 public:
  /// The grant of the shared DDR port (the arbiter in RTL npu_control), held per instruction.
  sc_core::sc_port<DdrPortIf> ddr_port;
  /// The DDR data (RTL rd_req_*/rd_* on the load engine, wr_* on the store engine): one TLM
  /// READ or WRITE per pixel (c_bytes contiguous bytes), while the unit holds ddr_port.
  tlm_utils::simple_initiator_socket<DmaUnit> ddr;

  /// `unit` is isa::Unit::Load or isa::Unit::Store.
  DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, isa::Unit unit);

 private:
  void run();
  /// This unit's part of one run of the program.
  void runProgram();
};

}  // namespace npu::sim
