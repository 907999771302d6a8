// Constant activations of an NPU segment: which constants they are, and their int8 form.
#include "npu/compiler/quant/constant_activation.h"

#include <algorithm>

#include "npu/compiler/quant/tensor_layout.h"
#include "npu/compiler/target/npu_support.h"
#include "npu/support/error.h"

namespace npu::compiler {

bool isConstantActivation(const Graph& graph, const Partition& partition, std::size_t n,
                          std::size_t i) {
  if (partition.device[n] != Device::Npu || !partition.npuKind[n]) {
    return false;
  }
  const NpuOpKind kind = *partition.npuKind[n];
  if (kind != NpuOpKind::Concat && kind != NpuOpKind::Add && kind != NpuOpKind::Sub &&
      kind != NpuOpKind::Mul) {
    return false;
  }
  const Node& node = graph.nodes()[n];
  if (i >= node.inputs.size() || !node.input(i).valid()) {
    return false;
  }
  const Value& v = graph.value(node.input(i));
  return v.isConstant() && v.dtype == DType::Float32;
}

std::vector<std::string> constantActivationNames(const Graph& graph, const Partition& partition) {
  std::vector<std::string> names;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    for (std::size_t i = 0; i < graph.nodes()[n].inputs.size(); ++i) {
      if (!isConstantActivation(graph, partition, n, i)) {
        continue;
      }
      const std::string& name = graph.value(graph.nodes()[n].input(i)).name;
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

QTensor quantizeConstantActivation(const Graph& graph, ValueId id,
                                   const golden::QuantParams& params, const std::string& name) {
  const Value& v = graph.value(id);
  std::optional<Shape> nhwc = nhwcShapeOf(v.shape);
  if (!v.isConstant() || v.data->dtype() != DType::Float32 || !nhwc) {
    fail("constant '{}' of shape {} is not an f32 [1, C, H, W] or [1, C] tensor", v.name,
         formatShape(v.shape));
  }
  std::span<const float> values = v.data->floats();
  golden::FloatTensor nchw{v.shape, std::vector<float>(values.begin(), values.end())};
  QTensor t;
  t.name = name;
  t.shape = *nhwc;
  t.scale = params.scale;
  t.zeroPoint = params.zeroPoint;
  t.data = quantizeToNhwc(nchw, params).data;
  return t;
}

}  // namespace npu::compiler
