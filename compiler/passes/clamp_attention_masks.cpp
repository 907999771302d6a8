// The clamp-attention-masks pass (clamp_attention_masks.h).
#include "npu/compiler/passes/clamp_attention_masks.h"

#include "npu/compiler/ir/masked_scores.h"
#include "rewrite.h"

namespace npu::compiler {

void clampAttentionMasks(Graph& graph) {
  const Uses uses(graph);
  const std::vector<bool> derived = integerDerivedValues(graph);
  std::vector<Node> rewritten;
  bool changed = false;
  for (const Node& original : std::vector<Node>(graph.nodes())) {
    Node node = original;
    const bool feedsSoftmax =
        node.op == OpKind::Add && node.outputs.size() == 1 &&
        soleReader(graph, uses, node.outputs[0], OpKind::Softmax).has_value();
    for (ValueId& in : node.inputs) {
      if (!feedsSoftmax || !in.valid() || !derived[in.index] || graph.value(in).isConstant() ||
          graph.value(in).dtype != DType::Float32) {
        continue;
      }
      const ValueId floor = addFloatConstant(graph, graph.value(in).name + ".mask_floor", {},
                                             std::vector<float>{kMaskFloor});
      const ValueId clamped = addTypedIntermediate(graph, graph.value(in).name + ".clamped",
                                                   graph.value(in).shape);
      in = appendRewriteNode(graph, rewritten, node.name, "/mask_floor", OpKind::Max, {in, floor},
                             clamped, {});
      changed = true;
    }
    rewritten.push_back(std::move(node));
  }
  if (changed) {
    graph.nodes() = std::move(rewritten);
  }
}

}  // namespace npu::compiler
