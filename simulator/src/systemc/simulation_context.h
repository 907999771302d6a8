// A fresh SystemC simulation context for one run (the timed engine's, or a unit test's).
#pragma once

#include <systemc>

#include <cstdlib>
#include <memory>

namespace npu::sim {

/// SystemC 2.3 cannot elaborate a second design in a finished context, so every run gets its own
/// context, deleted (with the coroutines of any thread still waiting) when the run is over.
class SimulationContext {
 public:
  SimulationContext() {
    static const bool quiet = [] {
      setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
      return true;
    }();
    (void)quiet;
    m_context = std::make_unique<sc_core::sc_simcontext>();
    sc_core::sc_curr_simcontext = m_context.get();
    sc_core::sc_default_global_context = m_context.get();
  }
  SimulationContext(const SimulationContext&) = delete;
  SimulationContext& operator=(const SimulationContext&) = delete;
  ~SimulationContext() {
    m_context.reset();
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
  }

 private:
  std::unique_ptr<sc_core::sc_simcontext> m_context;
};

}  // namespace npu::sim
