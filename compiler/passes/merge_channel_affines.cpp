// The merge-channel-affines pass: Mul by a per-channel constant, then Add of one, as one
// BatchNormalization.
#include "npu/compiler/passes/merge_channel_affines.h"

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The activation and the constant of a Mul or Add of one [1, C, H, W] activation and a
/// per-channel constant, without a fused activation.
struct AffineStep {
  ValueId x;
  std::vector<float> values;
};

std::optional<AffineStep> affineStep(const Graph& graph, const Node& node, OpKind op) {
  if (node.op != op || node.inputs.size() != 2 || node.outputs.size() != 1 ||
      fusedActivation(node).op != OpKind::Identity) {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const ValueId x = node.inputs[i];
    const Value& v = graph.value(x);
    if (v.isConstant() || v.dtype != DType::Float32 || v.shape.size() != 4 || v.shape[0] != 1) {
      continue;
    }
    if (std::optional<std::vector<float>> c =
            perChannelConstant(graph, node.inputs[1 - i], v.shape[1])) {
      return AffineStep{x, std::move(*c)};
    }
  }
  return std::nullopt;
}

}  // namespace

void mergeChannelAffines(Graph& graph) {
  const Uses uses(graph);
  std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> removed(nodes.size(), false);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    std::optional<AffineStep> mul = affineStep(graph, nodes[n], OpKind::Mul);
    const ValueId product = nodes[n].outputs.empty() ? ValueId{} : nodes[n].outputs[0];
    if (!mul || removed[n] || !uses.hasSingleUse(product) || graph.isOutput(product)) {
      continue;
    }
    const std::size_t reader = uses.consumers(product)[0];
    std::optional<AffineStep> add = affineStep(graph, nodes[reader], OpKind::Add);
    if (!add || add->x != product) {
      continue;
    }
    const auto channels = static_cast<std::int64_t>(mul->values.size());
    const std::string base = nodes[reader].name;
    Node bn;
    bn.name = nodes[reader].name;
    bn.op = OpKind::BatchNormalization;
    bn.inputs = {mul->x,
                 addFloatConstant(graph, base + ".scale", {channels}, std::move(mul->values)),
                 addFloatConstant(graph, base + ".bias", {channels}, std::move(add->values)),
                 addFloatConstant(graph, base + ".mean", {channels},
                                  std::vector<float>(static_cast<std::size_t>(channels), 0.0F)),
                 addFloatConstant(graph, base + ".var", {channels},
                                  std::vector<float>(static_cast<std::size_t>(channels), 1.0F))};
    bn.outputs = nodes[reader].outputs;
    bn.attributes.set("epsilon", 0.0F);
    nodes[reader] = std::move(bn);
    removed[n] = true;
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
