// Co-simulation: one program on the SystemC timed model and on the RTL, compared over the whole
// final DDR and per instruction end cycle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "npu/isa/program.h"
#include "npu/runtime/engine.h"

namespace npu::runtime {

struct CosimReport {
  EngineRun timed;  ///< The SystemC cycle model's run.
  EngineRun rtl;    ///< The RTL's run.
  /// Lowest DDR address where the two final images differ.
  std::optional<std::uint64_t> firstDdrDifference;
  /// Lowest instruction index whose end cycle differs.
  std::optional<std::size_t> firstCycleDifference;

  [[nodiscard]] bool matches() const { return !firstDdrDifference && !firstCycleDifference; }
  /// RTL cycles minus SystemC cycles.
  [[nodiscard]] std::int64_t cycleDelta() const {
    return static_cast<std::int64_t>(rtl.totalCycles) -
           static_cast<std::int64_t>(timed.totalCycles);
  }
  /// The comparison as text: DDR verdict, both cycle counts, and any first difference.
  [[nodiscard]] std::string summary(const isa::Program& program) const;
};

/// Runs both engines (runOnEngine). Throws npu::Error when the SystemC run faults (the program is
/// not one the RTL can be judged on) or the RTL run fails.
CosimReport cosimulate(const isa::Program& program, const rtl::RtlOptions& options = {});

}  // namespace npu::runtime
