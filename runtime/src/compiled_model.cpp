// Codegen of every NPU segment of a quantized model.
#include "npu/runtime/compiled_model.h"

#include "npu/support/error.h"

namespace npu::runtime {

CompiledModel compileModel(compiler::QuantizedModel model, const isa::NpuConfig& hw) {
  CompiledModel result{std::move(model), hw, {}};
  for (const compiler::NpuSegment& segment : result.model.npuSegments) {
    std::vector<golden::Int8Tensor> zeros;
    for (compiler::TensorId id : segment.graph.inputs) {
      golden::Int8Tensor t;
      t.shape = segment.graph.tensors[id].shape;
      std::int64_t count = 1;
      for (std::int64_t d : t.shape) {
        count *= d;
      }
      t.data.assign(static_cast<std::size_t>(count), 0);
      zeros.push_back(std::move(t));
    }
    try {
      result.programs.push_back(compiler::generateProgram(segment.graph, hw, zeros));
    } catch (const Error& e) {
      fail("{}: NPU segment {}: {}", result.model.graph.source(), segment.segment, e.what());
    }
  }
  return result;
}

}  // namespace npu::runtime
