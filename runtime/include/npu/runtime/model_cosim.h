// RTL co-simulation of a compiled model on one input: every NPU segment's program, with that
// input's DDR image, on the SystemC model and on the Verilator RTL, and the RTL's final DDR
// against the golden expectation. `npu run --rtl` and `npu bench --rtl` both use it.
#pragma once

#include <cstddef>
#include <vector>

#include "npu/compiler/driver/compiled_model.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/isa/program.h"
#include "npu/runtime/cosim.h"

namespace npu::runtime {

struct SegmentCosim {
  std::size_t segment = 0;
  isa::Program program;
  runtime::CosimReport report;
  /// The RTL's final DDR equals the golden expected DDR.
  bool goldenEqual = false;

  /// RTL == SystemC (DDR and every instruction's end cycle) and RTL == golden.
  [[nodiscard]] bool matches() const { return report.matches() && goldenEqual; }
};

std::vector<SegmentCosim> cosimulateModel(const compiler::CompiledModel& model,
                                          const compiler::TensorMap& input);

}  // namespace npu::runtime
