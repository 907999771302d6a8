// A whole model ready to run: the quantized model and one compiled NPU program per NPU segment.
#pragma once

#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/codegen/input_im2col.h"
#include "npu/compiler/quant/quantized_model.h"
#include "npu/isa/npu_config.h"

namespace npu::runtime {

struct CompiledModel {
  compiler::QuantizedModel model;
  isa::NpuConfig hw;
  /// Parallel to model.npuSegments: the graph codegen compiled (the segment's graph after
  /// im2colGraphInputs) and its program, whose inputs are zero until setProgramInputs fills them.
  std::vector<compiler::QuantizedGraph> graphs;
  std::vector<compiler::CompiledProgram> programs;
  /// Per segment, per graph input: the im2col layout the host gives that input, if any.
  std::vector<std::vector<std::optional<compiler::InputIm2col>>> inputIm2col;

  /// The int8 inputs of segment `i` in the layout its program reads (im2col applied).
  [[nodiscard]] std::vector<golden::Int8Tensor> programInputs(
      std::size_t i, std::vector<golden::Int8Tensor> segmentInputs) const;
};

/// Generates the program of every NPU segment for `hw`, with first-layer im2col of small-channel
/// inputs (input_im2col.h). Throws npu::Error naming the segment and layer when one cannot be
/// placed.
CompiledModel compileModel(compiler::QuantizedModel model, const isa::NpuConfig& hw);

}  // namespace npu::runtime
