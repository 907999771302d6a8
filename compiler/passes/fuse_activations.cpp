// The fuse-activations pass: SiLU/HardSwish recognition, then activations into Conv and Add
// epilogues.
#include "npu/compiler/passes/fuse_activations.h"

#include <cmath>
#include <limits>

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

bool near(float a, float b) {
  return std::fabs(a - b) <= 1e-6F;
}

/// Mul(x, Sigmoid(x)) -> Silu(x) and Mul(x, HardSigmoid(x; 1/6, 1/2)) -> HardSwish(x), when the
/// gate has no other reader.
void recognizeGatedActivations(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (graph.nodes()[n].op != OpKind::Mul || graph.nodes()[n].inputs.size() != 2) {
      continue;
    }
    for (std::size_t side = 0; side < 2; ++side) {
      const Node& mul = graph.nodes()[n];
      ValueId gate = mul.inputs[side];
      ValueId x = mul.inputs[1 - side];
      std::optional<std::size_t> g = uses.producer(gate);
      if (!g || removed[*g] || !uses.hasSingleUse(gate) || graph.nodes()[*g].input(0) != x) {
        continue;
      }
      const Node& gateNode = graph.nodes()[*g];
      OpKind fused = OpKind::Identity;
      if (gateNode.op == OpKind::Sigmoid) {
        fused = OpKind::Silu;
      } else if (gateNode.op == OpKind::HardSigmoid &&
                 near(gateNode.attributes.getFloat("alpha", 0.2F), 1.0F / 6.0F) &&
                 near(gateNode.attributes.getFloat("beta", 0.5F), 0.5F)) {
        fused = OpKind::HardSwish;
      }
      if (fused == OpKind::Identity) {
        continue;
      }
      Node& target = graph.nodes()[n];
      target.op = fused;
      target.inputs = {x};
      target.attributes = Attributes();
      removed[*g] = true;
      break;
    }
  }
  graph.removeNodes(removed);
}

/// The epilogue form of activation node `node`, or nullopt when it cannot be fused (Clip bounds
/// that are not constants, tanh-approximated GELU).
std::optional<FusedActivation> epilogueOf(const Graph& graph, const Node& node) {
  FusedActivation fused;
  fused.op = node.op;
  switch (node.op) {
    case OpKind::Relu:
      return fused;
    case OpKind::Clip: {
      constexpr float kInf = std::numeric_limits<float>::infinity();
      std::optional<float> lo =
          node.input(1).valid() ? scalarConstant(graph, node.input(1)) : -kInf;
      std::optional<float> hi = node.input(2).valid() ? scalarConstant(graph, node.input(2)) : kInf;
      if (!lo || !hi) {
        return std::nullopt;
      }
      fused.min = *lo;
      fused.max = *hi;
      return fused;
    }
    case OpKind::LeakyRelu:
      fused.alpha = node.attributes.getFloat("alpha", 0.01F);
      fused.lut = true;
      return fused;
    case OpKind::HardSigmoid:
      fused.alpha = node.attributes.getFloat("alpha", 0.2F);
      fused.beta = node.attributes.getFloat("beta", 0.5F);
      fused.lut = true;
      return fused;
    case OpKind::Gelu:
      if (node.attributes.getString("approximate", "none") != "none") {
        return std::nullopt;
      }
      fused.lut = true;
      return fused;
    case OpKind::Sigmoid:
    case OpKind::Tanh:
    case OpKind::HardSwish:
    case OpKind::Silu:
      fused.lut = true;
      return fused;
    default:
      return std::nullopt;
  }
}

void fuseIntoEpilogues(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& producer = graph.nodes()[n];
    if ((producer.op != OpKind::Conv && producer.op != OpKind::Add) ||
        fusedActivation(producer).op != OpKind::Identity) {
      continue;
    }
    ValueId out = producer.outputs.at(0);
    if (!uses.hasSingleUse(out)) {
      continue;
    }
    std::size_t reader = uses.consumers(out)[0];
    const Node& activation = graph.nodes()[reader];
    if (!isActivation(activation.op) || activation.input(0) != out) {
      continue;
    }
    std::optional<FusedActivation> fused = epilogueOf(graph, activation);
    // The element-wise unit clips but has no LUT stage.
    if (!fused || (producer.op == OpKind::Add && fused->lut)) {
      continue;
    }
    setFusedActivation(graph.nodes()[n], *fused);
    absorbConsumer(graph, n, reader, removed);
  }
  graph.removeNodes(removed);
}

}  // namespace

void fuseActivations(Graph& graph) {
  recognizeGatedActivations(graph);
  fuseIntoEpilogues(graph);
}

}  // namespace npu::compiler
