// The reduce-to-global-pool pass: a spatial ReduceMean/ReduceMax becomes a global pool.
#include "npu/compiler/passes/reduce_to_global_pool.h"

#include <algorithm>

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// True when `node` reduces exactly axes 2 and 3 of a rank-4 f32 tensor.
bool reducesSpatialAxes(const Graph& graph, const Node& node) {
  if ((node.op != OpKind::ReduceMean && node.op != OpKind::ReduceMax) || node.outputs.size() != 1 ||
      !node.input(0).valid() || graph.value(node.input(0)).shape.size() != 4) {
    return false;
  }
  const TensorData* axes = constantData(graph, node.input(1));
  if (axes == nullptr) {
    return false;
  }
  std::vector<std::int64_t> a = axes->toInt64();
  for (std::int64_t& axis : a) {
    axis = axis < 0 ? axis + 4 : axis;
  }
  std::sort(a.begin(), a.end());
  return a == std::vector<std::int64_t>{2, 3};
}

}  // namespace

void reduceToGlobalPool(Graph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    if (!reducesSpatialAxes(graph, graph.nodes()[i])) {
      continue;
    }
    Node& node = graph.nodes()[i];
    bool keepDims = node.attributes.getInt("keepdims", 1) != 0;
    node.op = node.op == OpKind::ReduceMean ? OpKind::GlobalAveragePool : OpKind::GlobalMaxPool;
    node.inputs.resize(1);
    node.attributes = Attributes();
    if (keepDims) {
      continue;
    }
    // [N, C] out: the pool writes [N, C, 1, 1], a Flatten the original output.
    ValueId flatOut = node.outputs[0];
    // A copy: addIntermediate below may move every Value, and a reference with them.
    const Shape in = graph.value(node.input(0)).shape;
    ValueId pooled = graph.addIntermediate(graph.uniqueValueName(node.name + ".pooled"));
    Value& pooledValue = graph.value(pooled);
    pooledValue.shape = {in[0], in[1], 1, 1};
    pooledValue.typed = true;
    graph.nodes()[i].outputs[0] = pooled;
    Node flatten;
    flatten.name = graph.uniqueNodeName(graph.nodes()[i].name + "/flatten");
    flatten.op = OpKind::Flatten;
    flatten.inputs = {pooled};
    flatten.outputs = {flatOut};
    flatten.attributes.set("axis", std::int64_t{1});
    graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i) + 1,
                         std::move(flatten));
    ++i;
  }
}

}  // namespace npu::compiler
