// A whole model ready to run: the quantized model and one compiled NPU program per NPU segment.
#pragma once

#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/quant/quantized_model.h"
#include "npu/isa/npu_config.h"

namespace npu::runtime {

struct CompiledModel {
  compiler::QuantizedModel model;
  isa::NpuConfig hw;
  /// Parallel to model.npuSegments. Inputs are zero until setProgramInputs fills them.
  std::vector<compiler::CompiledProgram> programs;
};

/// Generates the program of every NPU segment for `hw`. Throws npu::Error naming the segment and
/// layer when one cannot be placed.
CompiledModel compileModel(compiler::QuantizedModel model, const isa::NpuConfig& hw);

}  // namespace npu::runtime
