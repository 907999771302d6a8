// Values computed from integer graph inputs alone (masked_scores.h).
#include "npu/compiler/ir/masked_scores.h"

namespace npu::compiler {

std::vector<bool> integerDerivedValues(const Graph& graph) {
  std::vector<bool> derived(graph.valueCount(), false);
  for (const ValueId input : graph.inputs()) {
    const DType dtype = graph.value(input).dtype;
    derived[input.index] = dtype == DType::Int64 || dtype == DType::Int32;
  }
  for (const Node& node : graph.nodes()) {
    // A lookup of float rows (an embedding) makes features, not a mask.
    const bool lookup = node.op == OpKind::Gather && node.input(0).valid() &&
                        graph.value(node.input(0)).isConstant() &&
                        graph.value(node.input(0)).dtype == DType::Float32;
    bool fromIntegers = false;
    bool fromOthers = false;
    for (const ValueId in : node.inputs) {
      if (!in.valid() || graph.value(in).isConstant()) {
        continue;
      }
      fromIntegers = fromIntegers || derived[in.index];
      fromOthers = fromOthers || !derived[in.index];
    }
    for (const ValueId out : node.outputs) {
      derived[out.index] = fromIntegers && !fromOthers && !lookup;
    }
  }
  return derived;
}

}  // namespace npu::compiler
