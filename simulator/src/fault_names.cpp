// Names of fault kinds.
#include "npu/simulator/sim_fault.h"

namespace npu::sim {

std::string_view faultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::IllegalWord:
      return "illegal-word";
    case FaultKind::SramOutOfRange:
      return "sram-out-of-range";
    case FaultKind::DdrOutOfRange:
      return "ddr-out-of-range";
    case FaultKind::Deadlock:
      return "deadlock";
    case FaultKind::Watchdog:
      return "watchdog";
    case FaultKind::Hazard:
      return "hazard";
  }
  return "?";
}

}  // namespace npu::sim
