// The recognize-activations pass: gated activations exported as two nodes become one.
#include "npu/compiler/passes/recognize_activations.h"

#include <cmath>

#include "rewrite.h"

namespace npu::compiler {
namespace {

bool near(float a, float b) {
  return std::fabs(a - b) <= 1e-6F;
}

/// PRelu with one slope for every element is LeakyRelu with that slope (nn.PReLU's default).
void sharedSlopePreluAsLeakyRelu(Graph& graph) {
  for (Node& node : graph.nodes()) {
    if (node.op != OpKind::PRelu) {
      continue;
    }
    std::optional<float> slope = scalarConstant(graph, node.input(1));
    if (!slope) {
      continue;  // a slope per channel stays a PRelu (on the host)
    }
    node.op = OpKind::LeakyRelu;
    node.inputs.resize(1);
    node.attributes = Attributes();
    node.attributes.set("alpha", *slope);
  }
}

}  // namespace

// Mul(x, Sigmoid(x)) -> Silu(x), Mul(x, HardSigmoid(x; 1/6, 1/2)) -> HardSwish(x) and
// Mul(x, Tanh(Softplus(x))) -> Mish(x) (how exporters before opset 18 spell Mish).
void recognizeActivations(Graph& graph) {
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
      if (!g || removed[*g] || !uses.hasSingleUse(gate)) {
        continue;
      }
      const Node& gateNode = graph.nodes()[*g];
      // Mish's gate reads x through a Softplus of its own.
      std::optional<std::size_t> softplus = uses.producer(gateNode.input(0));
      bool mish = gateNode.op == OpKind::Tanh && softplus &&
                  graph.nodes()[*softplus].op == OpKind::Softplus &&
                  graph.nodes()[*softplus].input(0) == x && uses.hasSingleUse(gateNode.input(0));
      if (!mish && gateNode.input(0) != x) {
        continue;
      }
      OpKind fused = OpKind::Identity;
      if (mish) {
        fused = OpKind::Mish;
        removed[*softplus] = true;
      } else if (gateNode.op == OpKind::Sigmoid) {
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
  sharedSlopePreluAsLeakyRelu(graph);
}

}  // namespace npu::compiler
