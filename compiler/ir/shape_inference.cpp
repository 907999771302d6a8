// Shape inference over a graph, with the data of index tensors propagated through Shape/Gather/
// Concat chains so reshape targets are known.
#include "npu/compiler/ir/shape_inference.h"

#include <fmt/format.h>

#include <algorithm>

#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/ir/index_eval.h"
#include "shape_rules.h"

namespace npu::compiler {
namespace {

/// Index tensors larger than this are not propagated (they are never shapes).
constexpr std::int64_t kMaxPropagatedElements = 4096;

bool canEvaluate(const Node& node, std::span<const KnownValue* const> inputs) {
  if (inputs.empty() || inputs[0] == nullptr) {
    return false;
  }
  if (!runsOnIndexEvaluator(node.op, inputs[0]->dtype)) {
    return false;
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const KnownValue* in = inputs[i];
    if (in == nullptr) {
      continue;
    }
    bool shapeOnly = node.op == OpKind::Shape && i == 0;
    if (!shapeOnly && in->data == nullptr) {
      return false;
    }
    if (!shapeOnly && elementCount(in->shape) > kMaxPropagatedElements) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<InferredOutput> inferNode(const Node& node, std::span<const KnownValue* const> inputs) {
  std::vector<InferredOutput> outputs = inferOutputTypes(node, inputs);
  // Every inferred shape is bounded as graph inputs and initializers are, so the rules of later
  // nodes add and multiply dimensions far inside 64 bits (a Concat of two inferred dimensions
  // of 8.9e18 overflowed).
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    (void)boundedElementCount(outputs[i].shape, fmt::format("output {}", i));
  }
  bool small = std::all_of(outputs.begin(), outputs.end(), [](const InferredOutput& o) {
    return elementCount(o.shape) <= kMaxPropagatedElements;
  });
  if (!small || !canEvaluate(node, inputs)) {
    return outputs;
  }
  std::vector<Tensor> operands(inputs.size());
  std::vector<const Tensor*> pointers(inputs.size(), nullptr);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr) {
      continue;
    }
    operands[i].shape = inputs[i]->shape;
    bool shapeOnly = node.op == OpKind::Shape;
    if (!shapeOnly) {
      operands[i].data = *inputs[i]->data;
    }
    pointers[i] = &operands[i];
  }
  std::vector<Tensor> results = evaluateIndexOp(node, pointers);
  for (std::size_t i = 0; i < outputs.size() && i < results.size(); ++i) {
    if (results[i].shape != outputs[i].shape) {
      fail("evaluated shape {} differs from the inferred {}", formatShape(results[i].shape),
           formatShape(outputs[i].shape));
    }
    outputs[i].data = std::move(results[i].data);
  }
  return outputs;
}

InferredTypes inferGraph(const Graph& graph) {
  InferredTypes types;
  types.m_values.resize(graph.valueCount());
  for (std::size_t i = 0; i < graph.valueCount(); ++i) {
    const Value& v = graph.value(ValueId{static_cast<std::uint32_t>(i)});
    types.m_values[i] = KnownValue{v.dtype, v.shape, v.data ? &*v.data : nullptr};
  }
  std::vector<const KnownValue*> inputs;
  for (const Node& node : graph.nodes()) {
    inputs.clear();
    for (ValueId id : node.inputs) {
      inputs.push_back(id.valid() ? &types[id] : nullptr);
    }
    std::vector<InferredOutput> outputs =
        withNodeContext(graph, node, [&] { return inferNode(node, inputs); });
    if (outputs.size() != node.outputs.size()) {
      failAtNode(graph, node, "has {} outputs, the op defines {}", node.outputs.size(),
                 outputs.size());
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      KnownValue& known = types.m_values[node.outputs[i].index];
      known.dtype = outputs[i].dtype;
      known.shape = std::move(outputs[i].shape);
      if (outputs[i].data) {
        types.m_storage.push_back(std::move(*outputs[i].data));
        known.data = &types.m_storage.back();
      } else {
        known.data = nullptr;
      }
    }
  }
  return types;
}

}  // namespace npu::compiler
