// NPU cycles as SystemC time: one nanosecond of simulated time per cycle.
#pragma once

#include <systemc>

#include <cstdint>

namespace npu::sim {

/// `n` cycles as a SystemC time.
inline sc_core::sc_time cycles(std::uint64_t n) {
  return sc_core::sc_time(static_cast<double>(n), sc_core::SC_NS);
}

/// The current cycle.
inline std::uint64_t currentCycle() {
  return static_cast<std::uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5);
}

}  // namespace npu::sim
