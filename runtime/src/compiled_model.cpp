// Codegen of every NPU segment of a quantized model.
#include "npu/runtime/compiled_model.h"

#include "npu/support/error.h"

namespace npu::runtime {

std::vector<golden::Int8Tensor> CompiledModel::programInputs(
    std::size_t i, std::vector<golden::Int8Tensor> segmentInputs) const {
  const auto& im2col = inputIm2col.at(i);
  for (std::size_t k = 0; k < segmentInputs.size() && k < im2col.size(); ++k) {
    if (im2col[k]) {
      segmentInputs[k] = compiler::im2colInput(segmentInputs[k], *im2col[k]);
    }
  }
  return segmentInputs;
}

CompiledModel compileModel(compiler::QuantizedModel model, const isa::NpuConfig& hw) {
  CompiledModel result{std::move(model), hw, {}, {}, {}};
  for (const compiler::NpuSegment& segment : result.model.npuSegments) {
    compiler::QuantizedGraph graph = segment.graph;
    result.inputIm2col.push_back(compiler::im2colGraphInputs(graph));
    std::vector<golden::Int8Tensor> zeros;
    for (compiler::TensorId id : graph.inputs) {
      golden::Int8Tensor t;
      t.shape = graph.tensors[id].shape;
      std::int64_t count = 1;
      for (std::int64_t d : t.shape) {
        count *= d;
      }
      t.data.assign(static_cast<std::size_t>(count), 0);
      zeros.push_back(std::move(t));
    }
    try {
      result.programs.push_back(compiler::generateProgram(graph, hw, zeros));
    } catch (const Error& e) {
      fail("{}: NPU segment {}: {}", result.model.graph.source(), segment.segment, e.what());
    }
    result.graphs.push_back(std::move(graph));
  }
  return result;
}

}  // namespace npu::runtime
