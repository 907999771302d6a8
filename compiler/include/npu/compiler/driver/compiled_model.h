// A whole model ready to run: the quantized model and one compiled NPU program per NPU segment.
#pragma once

#include <optional>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/codegen/input_im2col.h"
#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

struct CompiledModel {
  QuantizedModel model;
  /// The target (a default NpuConfig when the compile stopped after quantization).
  isa::NpuConfig hw;
  /// The calibration samples the model was quantized with.
  std::vector<TensorMap> calibration;
  /// Parallel to model.npuSegments: the graph codegen compiled (the segment's graph after
  /// im2colGraphInputs) and its program, whose inputs are zero until setProgramInputs fills them.
  /// Empty when the compile stopped after quantization.
  std::vector<QuantizedGraph> graphs;
  std::vector<CompiledProgram> programs;
  /// Per segment, per graph input: the im2col layout the host gives that input, if any.
  std::vector<std::vector<std::optional<InputIm2col>>> inputIm2col;

  /// The int8 inputs of segment `i` in the layout its program reads (im2col applied).
  [[nodiscard]] std::vector<golden::Int8Tensor> programInputs(
      std::size_t i, std::vector<golden::Int8Tensor> segmentInputs) const;
};

}  // namespace npu::compiler
