// Fetch/dispatch (RTL npu_fetch with the dispatch half of npu_control): reads the instruction
// stream (dedicated read port) and dispatches each word in order into its unit's queue, stalling
// while that queue is full. END stops it and closes every queue.
#pragma once

#include <systemc>

#include "channels.h"
#include "timed_context.h"

namespace npu::sim {

class FetchUnit : public sc_core::sc_module {
 public:
  /// The instruction queues of the load, compute and store units, by isa::unitIndex (RTL
  /// q_push[u] with fb_word/fb_idx).
  sc_core::sc_vector<sc_core::sc_port<CommandQueueIf>> q_push;

  FetchUnit(const sc_core::sc_module_name& name, TimedContext& context);

  /// What fetch is doing now, for watchdog and deadlock messages.
  [[nodiscard]] const FetchState& state() const { return m_state; }
  /// Forgets the previous run (between runs, while the thread waits for the next).
  void reset() { m_state = FetchState{}; }

 private:
  void run();
  /// Fetch and dispatch of one run of the program.
  void runProgram();
  TimedContext& m_context;
  FetchState m_state;
};

}  // namespace npu::sim
