// The fuse-rms-norm pass: an RMSNorm spelled out as exporters write it becomes one
// RMSNormalization (over the last axis, with its weight) or ChannelRmsNorm (over axis 1).
#include "npu/compiler/passes/fuse_rms_norm.h"

#include <vector>

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The axis a keepdims ReduceMean of one constant axis reduces (normalised), or nullopt.
std::optional<std::int64_t> meanAxis(const Graph& graph, const Node& node) {
  if (node.op != OpKind::ReduceMean || node.outputs.size() != 1 || !node.input(0).valid() ||
      node.attributes.getInt("keepdims", 1) == 0) {
    return std::nullopt;
  }
  const TensorData* axes = constantData(graph, node.input(1));
  if (axes == nullptr || axes->size() != 1) {
    return std::nullopt;
  }
  const auto rank = static_cast<std::int64_t>(graph.value(node.input(0)).shape.size());
  const std::int64_t axis = axes->toInt64()[0] < 0 ? axes->toInt64()[0] + rank : axes->toInt64()[0];
  if (axis < 0 || axis >= rank) {
    return std::nullopt;
  }
  return axis;
}

/// The value a square node squares: Mul(x, x) or Pow(x, 2).
std::optional<ValueId> squared(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1) {
    return std::nullopt;
  }
  if (node.op == OpKind::Mul && node.inputs[0] == node.inputs[1]) {
    return node.inputs[0];
  }
  if (node.op == OpKind::Pow && scalarConstant(graph, node.inputs[1]) == 2.0F) {
    return node.inputs[0];
  }
  return std::nullopt;
}

/// True when x = y - mean(y) over `axis`: the chain after it is a LayerNorm's, which
/// fuse-channel-layernorm (or the LayerNorm forms of lift-token-tensors) takes whole.
bool isCentred(const Graph& graph, const Uses& uses, ValueId x, std::int64_t axis) {
  const std::optional<std::size_t> producer = uses.producer(x);
  if (!producer) {
    return false;
  }
  const Node& sub = graph.nodes()[*producer];
  if (sub.op != OpKind::Sub || sub.inputs.size() != 2) {
    return false;
  }
  const std::optional<std::size_t> mean = uses.producer(sub.inputs[1]);
  return mean && meanAxis(graph, graph.nodes()[*mean]) == axis &&
         graph.nodes()[*mean].input(0) == sub.inputs[0];
}

/// One matched RMSNorm: the nodes it spans, the one that becomes the fused node, and its parts.
struct RmsChain {
  std::vector<std::size_t> nodes;  ///< every node of the chain, `last` included
  std::size_t last = 0;            ///< the node whose output is the normalised x
  ValueId x;
  std::int64_t axis = 0;
  float epsilon = 0.0F;
};

/// The normalisation of x by the root `root`: Div(x, root), or Mul of x by Reciprocal(root) or
/// Div(1, root), each intermediate read once. Appends the nodes to `chain` and sets its `last`.
bool matchNormalise(const Graph& graph, const Uses& uses, ValueId root, RmsChain& chain) {
  const auto readers = uses.consumers(root);
  if (readers.size() != 1 || graph.isOutput(root)) {
    return false;
  }
  const Node& reader = graph.nodes()[readers[0]];
  if (reader.op == OpKind::Div && reader.inputs.size() == 2 && reader.inputs[1] == root) {
    if (reader.inputs[0] == chain.x) {
      chain.nodes.push_back(readers[0]);
      chain.last = readers[0];
      return true;
    }
    if (scalarConstant(graph, reader.inputs[0]) != 1.0F) {
      return false;
    }
  } else if (reader.op != OpKind::Reciprocal) {
    return false;
  }
  // Reciprocal(root) or Div(1, root): then x times it.
  chain.nodes.push_back(readers[0]);
  const ValueId inverse = reader.outputs[0];
  const auto mul = soleReader(graph, uses, inverse, OpKind::Mul);
  if (!mul || otherOperand(graph.nodes()[*mul], inverse) != chain.x) {
    return false;
  }
  chain.nodes.push_back(*mul);
  chain.last = *mul;
  return true;
}

/// The RMSNorm chain that starts at square node `first`, or nullopt.
std::optional<RmsChain> matchChain(const Graph& graph, const Uses& uses, std::size_t first) {
  const Node& square = graph.nodes()[first];
  const std::optional<ValueId> x = squared(graph, square);
  if (!x) {
    return std::nullopt;
  }
  RmsChain chain;
  chain.x = *x;
  chain.nodes.push_back(first);
  const auto mean = soleReader(graph, uses, square.outputs[0], OpKind::ReduceMean);
  const std::optional<std::int64_t> axis =
      mean ? meanAxis(graph, graph.nodes()[*mean]) : std::nullopt;
  if (!axis) {
    return std::nullopt;
  }
  if (isCentred(graph, uses, *x, *axis)) {
    return std::nullopt;
  }
  chain.axis = *axis;
  chain.nodes.push_back(*mean);
  const ValueId meanSquare = graph.nodes()[*mean].outputs[0];
  const auto add = soleReader(graph, uses, meanSquare, OpKind::Add);
  const std::optional<ValueId> epsilonValue =
      add ? otherOperand(graph.nodes()[*add], meanSquare) : std::nullopt;
  const std::optional<float> epsilon =
      epsilonValue ? scalarConstant(graph, *epsilonValue) : std::nullopt;
  if (!epsilon || !(*epsilon >= 0.0F)) {
    return std::nullopt;
  }
  chain.epsilon = *epsilon;
  chain.nodes.push_back(*add);
  const auto sqrt = soleReader(graph, uses, graph.nodes()[*add].outputs[0], OpKind::Sqrt);
  if (!sqrt) {
    return std::nullopt;
  }
  chain.nodes.push_back(*sqrt);
  if (!matchNormalise(graph, uses, graph.nodes()[*sqrt].outputs[0], chain)) {
    return std::nullopt;
  }
  return chain;
}

/// The weight after a last-axis RMSNorm: the constant operand of the normalised value's one
/// reader, a Mul, when it is one value per position of the last axis ([L]).
std::optional<std::size_t> weightMul(const Graph& graph, const Uses& uses, ValueId normalised,
                                     std::int64_t length) {
  const auto mul = soleReader(graph, uses, normalised, OpKind::Mul);
  if (!mul) {
    return std::nullopt;
  }
  const std::optional<ValueId> weight = otherOperand(graph.nodes()[*mul], normalised);
  const TensorData* data = weight ? constantData(graph, *weight) : nullptr;
  if (data == nullptr || data->dtype() != DType::Float32) {
    return std::nullopt;
  }
  if (graph.value(*weight).shape != Shape{length}) {
    return std::nullopt;
  }
  return mul;
}

}  // namespace

void fuseRmsNorm(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t s = 0; s < graph.nodes().size(); ++s) {
    if (removed[s]) {
      continue;
    }
    std::optional<RmsChain> chain = matchChain(graph, uses, s);
    if (!chain) {
      continue;
    }
    const Shape shape = graph.value(chain->x).shape;
    const auto rank = static_cast<std::int64_t>(shape.size());
    const bool lastAxis = chain->axis == rank - 1;
    if (!lastAxis && !(chain->axis == 1 && rank >= 3)) {
      continue;
    }
    std::size_t fusedIndex = chain->last;
    std::vector<ValueId> inputs{chain->x};
    if (lastAxis) {
      if (const auto mul =
              weightMul(graph, uses, graph.nodes()[chain->last].outputs[0], shape.back())) {
        inputs.push_back(*otherOperand(graph.nodes()[*mul], graph.nodes()[chain->last].outputs[0]));
        removed[chain->last] = true;
        fusedIndex = *mul;
      }
    }
    for (const std::size_t gone : chain->nodes) {
      removed[gone] = gone != fusedIndex;
    }
    Node& fused = graph.nodes()[fusedIndex];
    fused.op = lastAxis ? OpKind::RMSNormalization : OpKind::ChannelRmsNorm;
    fused.inputs = std::move(inputs);
    fused.attributes = Attributes();
    fused.attributes.set("epsilon", chain->epsilon);
    if (lastAxis) {
      fused.attributes.set("axis", std::int64_t{-1});
    }
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
