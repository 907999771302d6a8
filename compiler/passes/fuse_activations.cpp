// The fuse-activations pass: activations into Conv and Add epilogues.
#include "npu/compiler/passes/fuse_activations.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

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
    case OpKind::Mish:
    case OpKind::Softplus:
      fused.lut = true;
      return fused;
    default:
      return std::nullopt;
  }
}

/// The bounds of a clip-type activation (Relu, Clip), or nullopt for others.
std::optional<std::pair<float, float>> clipBounds(const FusedActivation& a) {
  if (a.op == OpKind::Relu) {
    return std::pair{0.0F, std::numeric_limits<float>::infinity()};
  }
  if (a.op == OpKind::Clip) {
    return std::pair{a.min, a.max};
  }
  return std::nullopt;
}

/// `first` then `second`, as one activation: two clips compose into one clip; anything else
/// cannot be composed.
std::optional<FusedActivation> compose(const FusedActivation& first,
                                       const FusedActivation& second) {
  if (first.op == OpKind::Identity) {
    return second;
  }
  std::optional<std::pair<float, float>> a = clipBounds(first);
  std::optional<std::pair<float, float>> b = clipBounds(second);
  if (!a || !b) {
    return std::nullopt;
  }
  float lo = std::max(a->first, b->first);
  float hi = std::min(a->second, b->second);
  if (lo > hi) {
    return std::nullopt;
  }
  FusedActivation merged;
  merged.op = lo == 0.0F && std::isinf(hi) ? OpKind::Relu : OpKind::Clip;
  merged.min = lo;
  merged.max = hi;
  return merged;
}

void fuseIntoEpilogues(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    // A fused Relu may be followed by a Clip (PyTorch exports ReLU6 so): repeat on this node.
    while (true) {
      const Node& producer = graph.nodes()[n];
      // A standalone BatchNormalization runs as a per-channel affine, whose epilogue clips
      // like a conv's (DenseNet's and pre-activation ResNets' BN -> ReLU).
      if (producer.op != OpKind::Conv && producer.op != OpKind::Add &&
          producer.op != OpKind::BatchNormalization) {
        break;
      }
      ValueId out = producer.outputs.at(0);
      if (!uses.hasSingleUse(out)) {
        break;
      }
      std::size_t reader = uses.consumers(out)[0];
      const Node& activation = graph.nodes()[reader];
      if (removed[reader] || !isActivation(activation.op) || activation.input(0) != out) {
        break;
      }
      std::optional<FusedActivation> fused = epilogueOf(graph, activation);
      if (fused) {
        fused = compose(fusedActivation(producer), *fused);
      }
      // The element-wise unit clips but has no LUT stage; a LUT epilogue is calibrated as a
      // conv's only.
      if (!fused || (producer.op != OpKind::Conv && fused->lut)) {
        break;
      }
      setFusedActivation(graph.nodes()[n], *fused);
      // The snapshot stays right: the node now writes the activation's output, whose readers
      // the snapshot knows.
      absorbConsumer(graph, n, reader, removed);
    }
  }
  graph.removeNodes(removed);
}

}  // namespace

void fuseActivations(Graph& graph) {
  fuseIntoEpilogues(graph);
}

}  // namespace npu::compiler
