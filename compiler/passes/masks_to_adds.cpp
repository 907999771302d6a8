// The masks-to-adds pass (masks_to_adds.h).
#include "npu/compiler/passes/masks_to_adds.h"

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// Below this a mask value absorbs any score it is added to (x + m == m for |x| < 1e30).
constexpr float kAbsorbingMask = -1.0e30F;

}  // namespace

void masksToAdds(Graph& graph) {
  for (Node& node : graph.nodes()) {
    const TensorData* condition = constantData(graph, node.input(0));
    const std::optional<float> masked =
        node.inputs.size() == 3 ? scalarConstant(graph, node.input(2)) : std::nullopt;
    if (node.op != OpKind::Where || node.outputs.size() != 1 || condition == nullptr || !masked ||
        *masked > kAbsorbingMask || graph.value(node.input(1)).dtype != DType::Float32 ||
        graph.value(node.input(1)).shape != graph.value(node.outputs[0]).shape) {
      continue;
    }
    std::vector<float> mask;
    for (const std::int64_t keep : condition->toInt64()) {
      mask.push_back(keep != 0 ? 0.0F : *masked);
    }
    const ValueId constant = addFloatConstant(graph, node.name + ".mask",
                                              graph.value(node.input(0)).shape, std::move(mask));
    node.op = OpKind::Add;
    node.inputs = {node.input(1), constant};
    node.attributes = Attributes();
  }
}

}  // namespace npu::compiler
