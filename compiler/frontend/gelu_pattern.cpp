// GELU recognition: the five nodes of x * 0.5 * (1 + erf(x / sqrt(2))) become one Gelu, and
// the eight of GPT-2's gelu_new, x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), one Gelu
// with approximate="tanh".
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

  using Match = std::pair<std::vector<std::size_t>, std::size_t>;

  /// Matches the pattern around Erf node `erf`: the nodes to remove and the final Mul, which
  /// becomes the Gelu.
  std::optional<Match> match(std::size_t erf, ValueId& x) const {
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
    return matchTail(erf, x, {*div});
  }

  /// Matches gelu_new around Tanh node `tanh`: Pow(x, 3) (or x * x * x), Mul 0.044715, Add x,
  /// Mul sqrt(2/pi), then the tail as for erf.
  std::optional<Match> matchTanh(std::size_t tanh, ValueId& x) const {
    const ValueId argument = node(tanh).input(0);
    const std::optional<std::size_t> scale = m_uses.producer(argument);
    if (!scale || !m_uses.hasSingleUse(argument)) {
      return std::nullopt;
    }
    const std::optional<ValueId> inner = otherThan(m_graph, node(*scale), OpKind::Mul,
                                                   std::sqrt(2.0 / 3.14159265358979323846), true);
    const std::optional<std::size_t> add = inner ? m_uses.producer(*inner) : std::nullopt;
    if (!add || !m_uses.hasSingleUse(*inner) || node(*add).op != OpKind::Add ||
        node(*add).inputs.size() != 2) {
      return std::nullopt;
    }
    for (std::size_t side = 0; side < 2; ++side) {
      const ValueId candidate = node(*add).inputs[side];
      const ValueId cubeTerm = node(*add).inputs[1 - side];
      const std::optional<std::size_t> coefficient = m_uses.producer(cubeTerm);
      const std::optional<ValueId> cube =
          coefficient && m_uses.hasSingleUse(cubeTerm)
              ? otherThan(m_graph, node(*coefficient), OpKind::Mul, 0.044715, true)
              : std::nullopt;
      const std::optional<std::size_t> pow = cube ? m_uses.producer(*cube) : std::nullopt;
      if (pow && m_uses.hasSingleUse(*cube) &&
          otherThan(m_graph, node(*pow), OpKind::Pow, 3.0, false) == candidate) {
        x = candidate;
        return matchTail(tanh, x, {*pow, *coefficient, *add, *scale});
      }
    }
    return std::nullopt;
  }

 private:
  /// The common tail of both forms after `core` (the Erf or Tanh node): Add 1, then the
  /// product with x and 0.5 in any of three orders. `removed` holds the nodes before the core.
  [[nodiscard]] std::optional<Match> matchTail(std::size_t core, ValueId x,
                                               std::vector<std::size_t> removed) const {
    const std::optional<ValueId> coreOut = soleOutput(core);
    std::optional<std::size_t> add = coreOut ? soleReader(*coreOut) : std::nullopt;
    if (!add || otherThan(m_graph, node(*add), OpKind::Add, 1.0, true) != coreOut) {
      return std::nullopt;
    }
    const std::optional<ValueId> addOut = soleOutput(*add);
    std::optional<std::size_t> next = addOut ? soleReader(*addOut) : std::nullopt;
    const std::optional<ValueId> nextOut = next ? soleOutput(*next) : std::nullopt;
    if (!nextOut) {
      return std::nullopt;
    }
    const ValueId bracket = *addOut;
    removed.push_back(core);
    removed.push_back(*add);
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

  const Graph& m_graph;
  const Uses& m_uses;
};

}  // namespace

void fuseGeluPattern(Graph& graph) {
  Uses uses(graph);
  Matcher matcher(graph, uses);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const OpKind core = graph.nodes()[n].op;
    if ((core != OpKind::Erf && core != OpKind::Tanh) || removed[n]) {
      continue;
    }
    ValueId x;
    auto match = core == OpKind::Erf ? matcher.match(n, x) : matcher.matchTanh(n, x);
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
    if (core == OpKind::Tanh) {
      gelu.attributes.set("approximate", std::string("tanh"));
    }
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
