// The simplify-reshapes pass: no-op data movement disappears, reshape and transpose chains merge.
#include "npu/compiler/passes/simplify_reshapes.h"

#include <algorithm>
#include <numeric>

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

std::vector<std::int64_t> permutationOf(const Graph& graph, const Node& transpose) {
  std::vector<std::int64_t> perm(graph.value(transpose.input(0)).shape.size());
  std::iota(perm.rbegin(), perm.rend(), 0);
  return transpose.attributes.getInts("perm", perm);
}

/// True when the node's output equals its input element for element.
bool isNoOp(const Graph& graph, const Node& node) {
  if (node.outputs.size() != 1 || !node.input(0).valid()) {
    return false;
  }
  const Value& in = graph.value(node.input(0));
  const Value& out = graph.value(node.outputs[0]);
  switch (node.op) {
    case OpKind::Identity:
      return true;
    case OpKind::Cast:  // to the type it has (Llama's RMSNorm casts its f32 input to f32)
      return in.dtype == out.dtype && in.shape == out.shape;
    case OpKind::Flatten:
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return in.shape == out.shape;
    case OpKind::Transpose: {
      std::vector<std::int64_t> perm = permutationOf(graph, node);
      for (std::size_t i = 0; i < perm.size(); ++i) {
        if (perm[i] != static_cast<std::int64_t>(i)) {
          return false;
        }
      }
      return true;
    }
    case OpKind::Pad: {
      const TensorData* pads = constantData(graph, node.input(1));
      if (pads == nullptr) {
        return false;
      }
      std::vector<std::int64_t> p = pads->toInt64();
      return std::all_of(p.begin(), p.end(), [](std::int64_t v) { return v == 0; });
    }
    case OpKind::Concat:
      return node.inputs.size() == 1;
    default:
      return false;
  }
}

/// reshape2(act(reshape1(x))) -> act(reshape2(reshape1(x))): an element-wise activation commutes
/// with a reshape, and moving the outer reshape up lets the two merge (and often cancel, as the
/// reshapes around two fully connected layers with an activation between them do). Applies only
/// when the activation reads a reshape, so nothing else moves. Returns true when it rewrote.
bool hoistReshapeOverActivation(Graph& graph, const Uses& uses, std::size_t index) {
  const Node& outer = graph.nodes()[index];
  std::optional<std::size_t> a = uses.producer(outer.input(0));
  if (!a || !uses.hasSingleUse(outer.input(0))) {
    return false;
  }
  const Node& act = graph.nodes()[*a];
  if (!isActivation(act.op) || act.outputs.size() != 1 ||
      fusedActivation(act).op != OpKind::Identity) {
    return false;
  }
  std::optional<std::size_t> inner = uses.producer(act.input(0));
  if (!inner || !isReshapeLike(graph.nodes()[*inner].op) || !uses.hasSingleUse(act.input(0))) {
    return false;
  }
  // The activation's old output becomes the moved reshape's output, with the final shape.
  ValueId between = act.outputs[0];
  ValueId finalOut = outer.outputs[0];
  graph.value(between).shape = graph.value(finalOut).shape;
  Node moved = outer;
  moved.inputs[0] = act.input(0);
  moved.outputs = {between};
  graph.nodes()[*a].inputs[0] = between;
  graph.nodes()[*a].outputs = {finalOut};
  graph.nodes().erase(graph.nodes().begin() + static_cast<std::ptrdiff_t>(index));
  graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(*a), std::move(moved));
  return true;
}

/// The input a Where passes on whole: the second when its condition is a constant that is
/// true everywhere (a causal mask's last query row in a decode step sees every key), the third
/// when false everywhere; only when that input has the output's shape.
std::optional<ValueId> chosenByWhere(const Graph& graph, const Node& node) {
  const TensorData* condition = constantData(graph, node.input(0));
  if (node.op != OpKind::Where || node.outputs.size() != 1 || condition == nullptr ||
      condition->size() == 0) {
    return std::nullopt;
  }
  const std::vector<std::int64_t> values = condition->toInt64();
  const bool allTrue = std::all_of(values.begin(), values.end(), [](std::int64_t v) { return v; });
  const bool allFalse =
      std::none_of(values.begin(), values.end(), [](std::int64_t v) { return v; });
  const ValueId chosen = allTrue ? node.input(1) : node.input(2);
  if ((!allTrue && !allFalse) || graph.value(chosen).shape != graph.value(node.outputs[0]).shape ||
      graph.value(chosen).dtype != graph.value(node.outputs[0]).dtype) {
    return std::nullopt;
  }
  return chosen;
}

/// Rewrites node `index` and returns true, or returns false when nothing applies to it.
bool simplifyNode(Graph& graph, const Uses& uses, std::size_t index) {
  const Node& node = graph.nodes()[index];
  if (isNoOp(graph, node)) {
    return bypassNode(graph, index, node.input(0), node.outputs[0]);
  }
  if (const std::optional<ValueId> chosen = chosenByWhere(graph, node)) {
    return bypassNode(graph, index, *chosen, node.outputs[0]);
  }
  if (isReshapeLike(node.op) && hoistReshapeOverActivation(graph, uses, index)) {
    return true;
  }
  bool reshape = isReshapeLike(node.op);
  if (!reshape && node.op != OpKind::Transpose) {
    return false;
  }
  std::optional<std::size_t> p = uses.producer(node.input(0));
  if (!p || !uses.hasSingleUse(node.input(0))) {
    return false;
  }
  const Node& inner = graph.nodes()[*p];
  if (reshape && isReshapeLike(inner.op)) {
    // reshape(reshape(x)) == reshape(x) to the final shape.
    ValueId shape =
        addIndexConstant(graph, node.name + ".shape", graph.value(node.outputs[0]).shape);
    Node& merged = graph.nodes()[index];
    merged.inputs = {graph.nodes()[*p].input(0), shape};
    merged.op = OpKind::Reshape;
    merged.attributes = Attributes();
  } else if (node.op == OpKind::Transpose && inner.op == OpKind::Transpose) {
    std::vector<std::int64_t> first = permutationOf(graph, inner);
    std::vector<std::int64_t> second = permutationOf(graph, node);
    std::vector<std::int64_t> composed(second.size());
    for (std::size_t i = 0; i < second.size(); ++i) {
      composed[i] = first[second[i]];
    }
    Node& merged = graph.nodes()[index];
    merged.inputs = {inner.input(0)};
    merged.attributes.set("perm", composed);
  } else {
    return false;
  }
  graph.nodes().erase(graph.nodes().begin() + static_cast<std::ptrdiff_t>(*p));
  return true;
}

bool simplifyOnce(Graph& graph) {
  Uses uses(graph);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (simplifyNode(graph, uses, n)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void simplifyReshapes(Graph& graph) {
  while (simplifyOnce(graph)) {
  }
}

}  // namespace npu::compiler
