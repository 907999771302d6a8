// Helpers for simulator tests: the npu-s config and small programs assembled from text.
#pragma once

#include <ostream>
#include <string>

#include "npu/isa/assembly.h"
#include "npu/isa/npu_config.h"
#include "npu/simulator/simulate.h"

namespace npu::sim {

/// gtest prints test parameters into ctest's test names: a mode by its name, not its bytes.
inline void PrintTo(SimMode mode, std::ostream* os) {
  *os << (mode == SimMode::Functional ? "functional" : "timed");
}

}  // namespace npu::sim

namespace npu::sim::testing {

inline isa::NpuConfig smallConfig() {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
}

/// Assembles `body` (instructions and directives) for npu-s.
inline isa::Program assembleProgram(const std::string& body) {
  return isa::assemble(".hw npu-s\n" + body, "test.s", "");
}

inline SimResult run(const isa::Program& program, SimMode mode, SimOptions options = {}) {
  options.mode = mode;
  return simulate(program, options);
}

inline std::string faultMessage(const SimResult& result) {
  return result.fault ? std::string(result.fault->what()) : std::string("(no fault)");
}

}  // namespace npu::sim::testing
