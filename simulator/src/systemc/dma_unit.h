// The load and store units: DMA engines between DDR and the SRAMs. Both run the same protocol
// (command, tokens, DDR port, transfer, tokens) on their own queue and port side.
#pragma once

#include <systemc>

#include <string>

#include "ddr_port.h"
#include "timed_context.h"

namespace npu::sim {

class DmaUnit : public sc_core::sc_module {
 public:
  /// `unit` is 0 for the load unit and 2 for the store unit.
  DmaUnit(const sc_core::sc_module_name& name, TimedContext& context, DdrPort& port,
          std::size_t unit);

 private:
  void run();
  TimedContext& m_context;
  DdrPort& m_port;
  std::size_t m_unit;
  std::string m_name;
};

}  // namespace npu::sim
