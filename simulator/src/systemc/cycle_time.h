// The timed engine's time base: one nanosecond of simulated time per cycle, from time 0. The units
// reach time through TimedContext (now(), cycles()), which also serves a TlmNpu's clock period and
// run origin; unit tests driving a unit on the engine's base use these.
#pragma once

#include <systemc>

#include <cstdint>

namespace npu::sim {

/// The engine's clock period.
inline sc_core::sc_time enginePeriod() {
  return {1.0, sc_core::SC_NS};
}

/// `n` cycles as a SystemC time on the engine's base.
inline sc_core::sc_time cycles(std::uint64_t n) {
  return sc_core::sc_time(static_cast<double>(n), sc_core::SC_NS);
}

/// The current cycle on the engine's base.
inline std::uint64_t currentCycle() {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5);
}

}  // namespace npu::sim
