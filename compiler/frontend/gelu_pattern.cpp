// GELU recognition: the five nodes of x * 0.5 * (1 + erf(x / sqrt(2))) become one Gelu.
#include "gelu_pattern.h"

#include <cmath>
#include <optional>

namespace npu::compiler {
namespace {

std::optional<float> scalarOf(const Graph& graph, ValueId id) {
  if (!id.valid()) {
    return std::nullopt;
  }
  const Value& v = graph.value(id);
  if (!v.data || v.data->dtype() != DType::Float32 || v.data->size() != 1) {
    return std::nullopt;
  }
  return v.data->floats()[0];
}

bool close(std::optional<float> value, double expected) {
  return value && std::fabs(*value - expected) <= 1e-3 * std::fabs(expected);
}

/// For a binary node with one scalar-constant operand equal to `constant`, the other operand.
std::optional<ValueId> otherThan(const Graph& graph, const Node& node, OpKind op, double constant,
                                 bool commutative) {
  if (node.op != op || node.inputs.size() != 2) {
    return std::nullopt;
  }
  if (close(scalarOf(graph, node.inputs[1]), constant)) {
    return node.inputs[0];
  }
  if (commutative && close(scalarOf(graph, node.inputs[0]), constant)) {
    return node.inputs[1];
  }
  return std::nullopt;
}

/// The other operand of a two-input Mul that reads `known`.
std::optional<ValueId> mulPartner(const Node& node, ValueId known) {
  if (node.op != OpKind::Mul || node.inputs.size() != 2) {
    return std::nullopt;
  }
  if (node.inputs[0] == known) {
    return node.inputs[1];
  }
  if (node.inputs[1] == known) {
    return node.inputs[0];
  }
  return std::nullopt;
}

class Matcher {
 public:
  Matcher(const Graph& graph, const Uses& uses) : m_graph(graph), m_uses(uses) {}

  /// The single reader of `id`, if it has exactly one.
  std::optional<std::size_t> soleReader(ValueId id) const {
    if (!m_uses.hasSingleUse(id)) {
      return std::nullopt;
    }
    return m_uses.consumers(id)[0];
  }

  const Node& node(std::size_t i) const { return m_graph.nodes()[i]; }

  /// Node `i`'s output when it has exactly one (a malformed model may give a node none).
  std::optional<ValueId> soleOutput(std::size_t i) const {
    const std::vector<ValueId>& outputs = node(i).outputs;
    return outputs.size() == 1 ? std::optional<ValueId>(outputs[0]) : std::nullopt;
  }

  /// Matches the pattern around Erf node `erf`: the nodes to remove and the final Mul, which
  /// becomes the Gelu.
  std::optional<std::pair<std::vector<std::size_t>, std::size_t>> match(std::size_t erf,
                                                                        ValueId& x) const {
    const double kSqrt2 = std::sqrt(2.0);
    ValueId scaled = node(erf).input(0);
    std::optional<std::size_t> div = m_uses.producer(scaled);
    if (!div || !m_uses.hasSingleUse(scaled)) {
      return std::nullopt;
    }
    std::optional<ValueId> input = otherThan(m_graph, node(*div), OpKind::Div, kSqrt2, false);
    if (!input) {
      input = otherThan(m_graph, node(*div), OpKind::Mul, 1.0 / kSqrt2, true);
    }
    if (!input) {
      return std::nullopt;
    }
    x = *input;
    const std::optional<ValueId> erfOut = soleOutput(erf);
    std::optional<std::size_t> add = erfOut ? soleReader(*erfOut) : std::nullopt;
    if (!add || otherThan(m_graph, node(*add), OpKind::Add, 1.0, true) != erfOut) {
      return std::nullopt;
    }
    const std::optional<ValueId> addOut = soleOutput(*add);
    std::optional<std::size_t> next = addOut ? soleReader(*addOut) : std::nullopt;
    const std::optional<ValueId> nextOut = next ? soleOutput(*next) : std::nullopt;
    if (!nextOut) {
      return std::nullopt;
    }
    const ValueId bracket = *addOut;
    std::vector<std::size_t> removed{*div, erf, *add};
    // x * bracket, then * 0.5.
    if (mulPartner(node(*next), bracket) == x) {
      std::optional<std::size_t> half = soleReader(*nextOut);
      if (half && otherThan(m_graph, node(*half), OpKind::Mul, 0.5, true) == nextOut) {
        removed.push_back(*next);
        return std::pair{removed, *half};
      }
      return std::nullopt;
    }
    // bracket * 0.5, then * x.
    if (otherThan(m_graph, node(*next), OpKind::Mul, 0.5, true) == bracket) {
      std::optional<std::size_t> last = soleReader(*nextOut);
      if (last && mulPartner(node(*last), *nextOut) == x) {
        removed.push_back(*next);
        return std::pair{removed, *last};
      }
      return std::nullopt;
    }
    // (x * 0.5) * bracket.
    std::optional<ValueId> halfX = mulPartner(node(*next), bracket);
    if (halfX) {
      std::optional<std::size_t> h = m_uses.producer(*halfX);
      if (h && m_uses.hasSingleUse(*halfX) &&
          otherThan(m_graph, node(*h), OpKind::Mul, 0.5, true) == x) {
        removed.push_back(*h);
        return std::pair{removed, *next};
      }
    }
    return std::nullopt;
  }

 private:
  const Graph& m_graph;
  const Uses& m_uses;
};

}  // namespace

void fuseGeluPattern(Graph& graph) {
  Uses uses(graph);
  Matcher matcher(graph, uses);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (graph.nodes()[n].op != OpKind::Erf) {
      continue;
    }
    ValueId x;
    auto match = matcher.match(n, x);
    if (!match) {
      continue;
    }
    for (std::size_t r : match->first) {
      removed[r] = true;
    }
    Node& gelu = graph.nodes()[match->second];
    gelu.op = OpKind::Gelu;
    gelu.inputs = {x};
    gelu.attributes = Attributes();
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
