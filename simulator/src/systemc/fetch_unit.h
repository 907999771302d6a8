// Fetch/dispatch: reads the instruction stream (dedicated read port) and dispatches each word in
// order into its unit's queue, stalling while that queue is full. END stops it.
#pragma once

#include <systemc>

#include "timed_context.h"

namespace npu::sim {

class FetchUnit : public sc_core::sc_module {
 public:
  FetchUnit(const sc_core::sc_module_name& name, TimedContext& context);

 private:
  void run();
  TimedContext& m_context;
};

}  // namespace npu::sim
