// The split-grouped-attention pass: attention whose K/V heads are repeated for grouped-query
// attention as one MatMul per K/V head (split_grouped_attention.h).
#include "npu/compiler/passes/split_grouped_attention.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "npu/compiler/passes/eliminate_dead_code.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The longest repeat chain followed back from a MatMul operand.
constexpr std::size_t kMaxRepeatNodes = 8;
/// The largest shared operand whose element map is computed.
constexpr std::int64_t kMaxMappedElements = std::int64_t{1} << 22;

/// A MatMul operand [1, H, P, Q] that is K/V heads [1, G, X, Y] repeated H / G times each (head
/// h reads K/V head h / (H / G)), as they are or with their last two axes swapped.
struct RepeatedHeads {
  ValueId kv;
  std::int64_t kvHeads = 0;
  bool transposed = false;
};

/// The data movement a repeat of K/V heads may be written with.
bool repeats(const Node& n) {
  const bool op = n.op == OpKind::Transpose || isReshapeLike(n.op) || n.op == OpKind::Expand ||
                  n.op == OpKind::Tile || n.op == OpKind::Concat || n.op == OpKind::Split ||
                  n.op == OpKind::Slice || n.op == OpKind::Gather;
  return op && !n.outputs.empty();
}

/// The values `b` is computed from through repeat nodes, nearest first: K/V candidates.
std::vector<ValueId> sourcesOf(const Graph& graph, const Uses& uses, ValueId b) {
  std::vector<ValueId> found;
  std::vector<ValueId> frontier{b};
  std::set<ValueId> seen{b};
  for (std::size_t steps = 0; !frontier.empty() && steps < kMaxRepeatNodes; ++steps) {
    std::vector<ValueId> next;
    for (const ValueId v : frontier) {
      const std::optional<std::size_t> p = uses.producer(v);
      if (!p || !repeats(graph.nodes()[*p])) {
        continue;
      }
      for (const ValueId in : graph.nodes()[*p].inputs) {
        if (in.valid() && !graph.value(in).isConstant() && seen.insert(in).second) {
          found.push_back(in);
          next.push_back(in);
        }
      }
    }
    frontier = std::move(next);
  }
  return found;
}

/// Whether `b` is `kv`'s heads repeated: head h of b is head h / (H / G) of kv, as it is
/// (`transposed` false) or with its last two axes swapped.
std::optional<bool> repeatsHeads(const Graph& graph, const Uses& uses, ValueId kv, ValueId b) {
  const Shape shape = graph.value(b).shape;
  const Shape source = graph.value(kv).shape;
  if (source.size() != 4 || source[0] != 1 || source[1] >= shape[1] || shape[1] % source[1] != 0 ||
      graph.value(kv).dtype != DType::Float32) {
    return std::nullopt;
  }
  const bool same = shape[2] == source[2] && shape[3] == source[3];
  const bool swapped = shape[2] == source[3] && shape[3] == source[2];
  const std::optional<std::vector<std::size_t>> nodes =
      (same || swapped) ? nodesBetween(graph, uses, kv, b, repeats, kMaxRepeatNodes * 4)
                        : std::nullopt;
  const std::optional<Tensor> map =
      nodes ? numberedElements(graph, kv, b, *nodes, kMaxMappedElements) : std::nullopt;
  if (!map || map->shape != shape) {
    return std::nullopt;
  }
  const std::int64_t perGroup = shape[1] / source[1];
  const std::int64_t block = source[2] * source[3];
  bool identity = same;
  bool transposed = swapped;
  const std::span<const std::int64_t> m = map->data.int64s();
  for (std::int64_t h = 0; h < shape[1]; ++h) {
    const std::int64_t base = (h / perGroup) * block + 1;  // numbered from 1
    for (std::int64_t i = 0; i < shape[2]; ++i) {
      for (std::int64_t j = 0; j < shape[3]; ++j) {
        const std::int64_t v = m[static_cast<std::size_t>((h * shape[2] + i) * shape[3] + j)];
        identity = identity && v == base + i * shape[3] + j;
        transposed = transposed && v == base + j * shape[2] + i;
      }
    }
  }
  if (!identity && !transposed) {
    return std::nullopt;
  }
  return !identity;
}

std::optional<RepeatedHeads> repeatedHeads(const Graph& graph, const Uses& uses, ValueId b) {
  const Shape shape = graph.value(b).shape;
  if (shape.size() != 4 || shape[0] != 1 || shape[1] < 2) {
    return std::nullopt;
  }
  for (const ValueId kv : sourcesOf(graph, uses, b)) {
    if (const std::optional<bool> transposed = repeatsHeads(graph, uses, kv, b)) {
      return RepeatedHeads{kv, graph.value(kv).shape[1], *transposed};
    }
  }
  return std::nullopt;
}

/// Emits MatMul(A, repeat(KV)) as one MatMul per K/V head, concatenated over the heads.
class GroupWriter {
 public:
  /// `scale`: the scalar Mul or Div that alone reads the MatMul's result (scores / sqrt(d)),
  /// applied to each group's result so that it stays next to its MatMul (a HeadMatMul's alpha).
  GroupWriter(Graph& graph, const Node& matmul, const RepeatedHeads& kv, const Node* scale,
              std::vector<Node>& out)
      : m_graph(graph), m_matmul(matmul), m_kv(kv), m_scale(scale), m_out(out) {}

  void write() {
    const Shape a = m_graph.value(m_matmul.input(0)).shape;
    const Shape y = m_graph.value(m_matmul.outputs[0]).shape;
    const Shape kv = m_graph.value(m_kv.kv).shape;
    const std::int64_t perGroup = a[1] / m_kv.kvHeads;
    std::vector<ValueId> parts;
    for (std::int64_t g = 0; g < m_kv.kvHeads; ++g) {
      const ValueId ag =
          slice(m_matmul.input(0), g * perGroup, perGroup, {1, perGroup, a[2], a[3]});
      ValueId kvg = slice(m_kv.kv, g, 1, {1, 1, kv[2], kv[3]});
      if (m_kv.transposed) {
        Attributes perm;
        perm.set("perm", std::vector<std::int64_t>{0, 1, 3, 2});
        kvg = node(OpKind::Transpose, {kvg}, {1, 1, kv[3], kv[2]}, std::move(perm));
      }
      ValueId part = node(OpKind::MatMul, {ag, kvg}, {1, perGroup, y[2], y[3]});
      if (m_scale != nullptr) {
        std::vector<ValueId> inputs = m_scale->inputs;
        std::replace(inputs.begin(), inputs.end(), m_matmul.outputs[0], part);
        part = node(m_scale->op, std::move(inputs), {1, perGroup, y[2], y[3]});
      }
      parts.push_back(part);
    }
    Attributes heads;
    heads.set("axis", std::int64_t{1});
    const ValueId out = m_scale != nullptr ? m_scale->outputs[0] : m_matmul.outputs[0];
    appendRewriteNode(m_graph, m_out, m_matmul.name, "/group", OpKind::Concat, std::move(parts),
                      out, std::move(heads));
  }

 private:
  ValueId slice(ValueId x, std::int64_t begin, std::int64_t count, Shape shape) {
    const std::string base = m_matmul.name + ".group";
    return node(OpKind::Slice,
                {x, addIndexConstant(m_graph, base + "_starts", {begin}),
                 addIndexConstant(m_graph, base + "_ends", {begin + count}),
                 addIndexConstant(m_graph, base + "_axes", {1})},
                std::move(shape));
  }

  ValueId node(OpKind op, std::vector<ValueId> inputs, Shape shape, Attributes attributes = {}) {
    const ValueId out = addTypedIntermediate(m_graph, m_matmul.name + ".group", std::move(shape));
    return appendRewriteNode(m_graph, m_out, m_matmul.name, "/group", op, std::move(inputs), out,
                             std::move(attributes));
  }

  Graph& m_graph;
  const Node& m_matmul;
  const RepeatedHeads& m_kv;
  const Node* m_scale;
  std::vector<Node>& m_out;
};

}  // namespace

/// The scalar Mul or Div by a constant that is the only reader of `value`, if any.
std::optional<std::size_t> scalarScaling(const Graph& graph, const Uses& uses, ValueId value) {
  for (const OpKind op : {OpKind::Mul, OpKind::Div}) {
    const std::optional<std::size_t> reader = soleReader(graph, uses, value, op);
    if (!reader) {
      continue;
    }
    const Node& n = graph.nodes()[*reader];
    const std::optional<ValueId> other = otherOperand(n, value);
    if (other && scalarConstant(graph, *other) && (op == OpKind::Mul || n.input(0) == value)) {
      return reader;
    }
  }
  return std::nullopt;
}

void splitGroupedAttention(Graph& graph) {
  const Uses uses(graph);
  std::vector<std::optional<RepeatedHeads>> found(graph.nodes().size());
  std::vector<std::optional<std::size_t>> scale(graph.nodes().size());
  std::vector<bool> absorbed(graph.nodes().size(), false);
  bool any = false;
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& n = graph.nodes()[i];
    if (n.op != OpKind::MatMul || n.outputs.size() != 1 ||
        constantData(graph, n.input(1)) != nullptr) {
      continue;
    }
    const Shape a = graph.value(n.input(0)).shape;
    found[i] = repeatedHeads(graph, uses, n.input(1));
    if (found[i] && (a.size() != 4 || a[1] != graph.value(n.input(1)).shape[1])) {
      found[i].reset();
    }
    if (found[i]) {
      scale[i] = scalarScaling(graph, uses, n.outputs[0]);
      if (scale[i]) {
        absorbed[*scale[i]] = true;
      }
    }
    any = any || found[i].has_value();
  }
  if (!any) {
    return;
  }
  const std::vector<Node> nodes = graph.nodes();
  std::vector<Node> rewritten;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (found[i]) {
      GroupWriter(graph, nodes[i], *found[i], scale[i] ? &nodes[*scale[i]] : nullptr, rewritten)
          .write();
    } else if (!absorbed[i]) {
      rewritten.push_back(nodes[i]);
    }
  }
  graph.nodes() = std::move(rewritten);
  eliminateDeadCode(graph);
}

}  // namespace npu::compiler
