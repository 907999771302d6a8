// The rotary-to-tokens pass: a rotary embedding applied to attention heads, as exporters write
// it, computed on the token tensor before the head split (rotary_to_tokens.h).
#include "npu/compiler/passes/rotary_to_tokens.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "npu/compiler/passes/eliminate_dead_code.h"
#include "npu/support/error.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The longest chain of nodes from the heads to their rotation.
constexpr std::size_t kMaxRotationNodes = 16;
/// The largest heads tensor whose rotation is worked out element by element.
constexpr std::int64_t kMaxRotationElements = std::int64_t{1} << 22;
/// Above this many slices the rotation is a signed permutation MatMul instead.
constexpr std::int64_t kMaxSlicesPerHead = 4;

/// The heads X = Transpose(Reshape(P, [1, T, H, D]), [0, 2, 1, 3]) of a token tensor P
/// [1, T, H * D].
struct Heads {
  ValueId tokens;  ///< P
  std::int64_t t = 0;
  std::int64_t h = 0;
  std::int64_t d = 0;
};

std::optional<Heads> headSplit(const Graph& graph, const Uses& uses, ValueId x) {
  const std::optional<std::size_t> transpose = uses.producer(x);
  if (!transpose || graph.nodes()[*transpose].op != OpKind::Transpose) {
    return std::nullopt;
  }
  const Node& tr = graph.nodes()[*transpose];
  if (tr.attributes.getInts("perm", {}) != std::vector<std::int64_t>{0, 2, 1, 3}) {
    return std::nullopt;
  }
  const std::optional<std::size_t> reshape = uses.producer(tr.input(0));
  if (!reshape || graph.nodes()[*reshape].op != OpKind::Reshape) {
    return std::nullopt;
  }
  const ValueId p = graph.nodes()[*reshape].input(0);
  const Shape split = graph.value(tr.input(0)).shape;
  const Shape tokens = graph.value(p).shape;
  if (split.size() != 4 || split[0] != 1 || tokens.size() != 3 ||
      tokens != Shape{1, split[1], split[2] * split[3]} || graph.value(p).isConstant() ||
      graph.value(p).dtype != DType::Float32) {
    return std::nullopt;
  }
  return Heads{p, split[1], split[2], split[3]};
}

/// A rotation of the heads' last axis: R[..., j] = sign[j] * X[..., source[j]].
struct Rotation {
  std::vector<std::int64_t> source;
  std::vector<float> sign;
};

/// The data movement (and negation) a rotation may be written with.
bool rotates(const Node& n) {
  const bool op = n.op == OpKind::Slice || n.op == OpKind::Concat || isReshapeLike(n.op) ||
                  n.op == OpKind::Transpose || n.op == OpKind::Gather || n.op == OpKind::Neg ||
                  n.op == OpKind::Mul || n.op == OpKind::Split;
  return op && !n.outputs.empty();
}

/// R's rotation of X: runs the nodes between them on X's numbered elements and reads the per-row
/// permutation off the result; nullopt unless every row of R is a signed permutation of the same
/// row of X, the same for every row.
std::optional<Rotation> rotationOf(const Graph& graph, const Uses& uses, ValueId x, ValueId r) {
  const Shape shape = graph.value(x).shape;
  if (graph.value(r).shape != shape || shape.empty()) {
    return std::nullopt;
  }
  const std::optional<std::vector<std::size_t>> nodes =
      nodesBetween(graph, uses, x, r, rotates, kMaxRotationNodes);
  const std::optional<Tensor> numbered =
      nodes ? numberedElements(graph, x, r, *nodes, kMaxRotationElements) : std::nullopt;
  if (!numbered || numbered->shape != shape) {
    return std::nullopt;
  }
  const std::span<const std::int64_t> map = numbered->data.int64s();
  const std::int64_t d = shape.back();
  Rotation rotation{std::vector<std::int64_t>(static_cast<std::size_t>(d), -1),
                    std::vector<float>(static_cast<std::size_t>(d), 0.0F)};
  for (std::size_t e = 0; e < map.size(); ++e) {
    const std::int64_t from = std::abs(map[e]) - 1;
    const auto row = static_cast<std::int64_t>(e) / d;
    const auto j = static_cast<std::size_t>(static_cast<std::int64_t>(e) % d);
    if (map[e] == 0 || from / d != row) {
      return std::nullopt;
    }
    const float sign = map[e] < 0 ? -1.0F : 1.0F;
    if (e < static_cast<std::size_t>(d)) {
      rotation.source[j] = from % d;
      rotation.sign[j] = sign;
    } else if (rotation.source[j] != from % d || rotation.sign[j] != sign) {
      return std::nullopt;
    }
  }
  std::vector<std::int64_t> sorted = rotation.source;
  std::sort(sorted.begin(), sorted.end());
  for (std::int64_t j = 0; j < d; ++j) {
    if (sorted[static_cast<std::size_t>(j)] != j) {
      return std::nullopt;
    }
  }
  return rotation;
}

/// One rotary embedding found: Y = X * C + R(X) * S on heads X of tokens P.
struct Rotary {
  std::size_t add = 0;
  Heads heads;
  ValueId cos;
  ValueId sin;
  Rotation rotation;
};

/// `c` broadcasts over X's heads to [1, H, T, D] with one row per token.
bool perToken(const Graph& graph, ValueId c, const Heads& heads) {
  Shape s = graph.value(c).shape;
  if (s.size() > 4 || graph.value(c).dtype != DType::Float32) {
    return false;
  }
  s.insert(s.begin(), 4 - s.size(), 1);
  return s == Shape{1, 1, heads.t, heads.d};
}

std::optional<Rotary> matchRotary(const Graph& graph, const Uses& uses, std::size_t index) {
  const Node& add = graph.nodes()[index];
  if (add.op != OpKind::Add || add.inputs.size() != 2 || add.outputs.size() != 1) {
    return std::nullopt;
  }
  for (int first = 0; first < 2; ++first) {
    const std::optional<std::size_t> m1 = uses.producer(add.inputs[first]);
    const std::optional<std::size_t> m2 = uses.producer(add.inputs[1 - first]);
    if (!m1 || !m2 || graph.nodes()[*m1].op != OpKind::Mul ||
        graph.nodes()[*m2].op != OpKind::Mul) {
      continue;
    }
    for (int xa = 0; xa < 2; ++xa) {
      const Node& byCos = graph.nodes()[*m1];
      const ValueId x = byCos.inputs[xa];
      std::optional<Heads> heads = headSplit(graph, uses, x);
      if (!heads || !perToken(graph, byCos.inputs[1 - xa], *heads)) {
        continue;
      }
      for (int ra = 0; ra < 2; ++ra) {
        const Node& bySin = graph.nodes()[*m2];
        const ValueId r = bySin.inputs[ra];
        if (!perToken(graph, bySin.inputs[1 - ra], *heads)) {
          continue;
        }
        std::optional<Rotation> rotation = rotationOf(graph, uses, x, r);
        if (rotation) {
          return Rotary{index, *heads, byCos.inputs[1 - xa], bySin.inputs[1 - ra],
                        std::move(*rotation)};
        }
      }
    }
  }
  return std::nullopt;
}

/// The per-token tables already made, by (table, heads, signs): the layers of a model and the q
/// and k of one layer share their cos and sin.
using TableCache = std::map<std::tuple<ValueId, std::int64_t, std::vector<float>>, ValueId>;

/// Emits the rewrite's nodes, named after the Add, into `nodes`.
class RotaryWriter {
 public:
  RotaryWriter(Graph& graph, const Rotary& rotary, std::vector<Node>& nodes, TableCache& tables)
      : m_graph(graph),
        m_r(rotary),
        m_nodes(nodes),
        m_tables(tables),
        m_base(graph.nodes()[rotary.add].name),
        m_tokens({1, rotary.heads.t, rotary.heads.h * rotary.heads.d}) {}

  void write(ValueId out) {
    const Heads& h = m_r.heads;
    const bool slices = runs() <= kMaxSlicesPerHead;
    const ValueId cosTokens = perTokenTable(m_r.cos, {}, "cos");
    const ValueId sinTokens =
        perTokenTable(m_r.sin, slices ? m_r.rotation.sign : std::vector<float>{}, "sin");
    const ValueId rotated = slices ? rotatedBySlices() : rotatedByMatMul();
    const ValueId a = node(OpKind::Mul, {h.tokens, cosTokens}, m_tokens);
    const ValueId b = node(OpKind::Mul, {rotated, sinTokens}, m_tokens);
    const ValueId y = node(OpKind::Add, {a, b}, m_tokens);
    const ValueId split =
        node(OpKind::Reshape, {y, index("split_shape", {1, h.t, h.h, h.d})}, {1, h.t, h.h, h.d});
    Attributes perm;
    perm.set("perm", std::vector<std::int64_t>{0, 2, 1, 3});
    append(OpKind::Transpose, {split}, out, std::move(perm));
  }

 private:
  /// The runs of consecutive sources in one head's rotation.
  [[nodiscard]] std::int64_t runs() const {
    std::int64_t count = 0;
    const auto& source = m_r.rotation.source;
    for (std::size_t j = 0; j < source.size(); ++j) {
      count += j == 0 || source[j] != source[j - 1] + 1 ? 1 : 0;
    }
    return count;
  }

  /// R(P) in token layout: each head's runs sliced from P and concatenated (no sign: it is in
  /// the sine table).
  ValueId rotatedBySlices() {
    const Heads& h = m_r.heads;
    const auto& source = m_r.rotation.source;
    std::vector<ValueId> pieces;
    for (std::int64_t head = 0; head < h.h; ++head) {
      for (std::size_t j = 0; j < source.size();) {
        std::size_t end = j + 1;
        while (end < source.size() && source[end] == source[end - 1] + 1) {
          ++end;
        }
        const std::int64_t from = head * h.d + source[j];
        const auto length = static_cast<std::int64_t>(end - j);
        pieces.push_back(node(
            OpKind::Slice,
            {h.tokens, index("starts", {from}), index("ends", {from + length}), index("axes", {2})},
            {1, h.t, length}));
        j = end;
      }
    }
    Attributes axis;
    axis.set("axis", std::int64_t{2});
    return node(OpKind::Concat, std::move(pieces), m_tokens, std::move(axis));
  }

  /// R(P) in token layout as P times a signed permutation matrix [H * D, H * D].
  ValueId rotatedByMatMul() {
    const Heads& h = m_r.heads;
    const std::int64_t n = h.h * h.d;
    std::vector<float> matrix(static_cast<std::size_t>(n * n), 0.0F);
    for (std::int64_t head = 0; head < h.h; ++head) {
      for (std::int64_t j = 0; j < h.d; ++j) {
        const std::int64_t row = head * h.d + m_r.rotation.source[static_cast<std::size_t>(j)];
        matrix[static_cast<std::size_t>(row * n + head * h.d + j)] =
            m_r.rotation.sign[static_cast<std::size_t>(j)];
      }
    }
    const ValueId weights = addFloatConstant(m_graph, m_base + ".rotation", {n, n}, matrix);
    return node(OpKind::MatMul, {h.tokens, weights}, m_tokens);
  }

  /// A per-token table [1, T, D] (times `sign` per column when given) repeated for every head:
  /// [1, T, H * D].
  ValueId perTokenTable(ValueId table, const std::vector<float>& sign, std::string_view what) {
    const Heads& h = m_r.heads;
    const auto key = std::make_tuple(table, h.h, sign);
    if (const auto it = m_tables.find(key); it != m_tables.end()) {
      return it->second;
    }
    ValueId rows = node(OpKind::Reshape,
                        {table, index(std::string(what) + "_shape", {1, h.t, h.d})}, {1, h.t, h.d});
    const bool flips = std::any_of(sign.begin(), sign.end(), [](float s) { return s < 0; });
    if (flips) {
      const ValueId signs =
          addFloatConstant(m_graph, m_base + "." + std::string(what) + "_sign", {h.d}, sign);
      rows = node(OpKind::Mul, {rows, signs}, {1, h.t, h.d});
    }
    Attributes axis;
    axis.set("axis", std::int64_t{2});
    const ValueId repeated =
        node(OpKind::Concat, std::vector<ValueId>(static_cast<std::size_t>(h.h), rows), m_tokens,
             std::move(axis));
    m_tables[key] = repeated;
    return repeated;
  }

  ValueId index(const std::string& what, std::vector<std::int64_t> values) {
    return addIndexConstant(m_graph, m_base + "." + what, std::move(values));
  }

  ValueId node(OpKind op, std::vector<ValueId> inputs, Shape shape, Attributes attributes = {}) {
    const ValueId out = addTypedIntermediate(m_graph, m_base + ".tokens", std::move(shape));
    return append(op, std::move(inputs), out, std::move(attributes));
  }

  ValueId append(OpKind op, std::vector<ValueId> inputs, ValueId out, Attributes attributes = {}) {
    return appendRewriteNode(m_graph, m_nodes, m_base, "/tokens", op, std::move(inputs), out,
                             std::move(attributes));
  }

  Graph& m_graph;
  const Rotary& m_r;
  std::vector<Node>& m_nodes;
  TableCache& m_tables;
  std::string m_base;
  Shape m_tokens;
};

}  // namespace

void rotaryToTokens(Graph& graph) {
  const Uses uses(graph);
  std::vector<std::optional<Rotary>> found(graph.nodes().size());
  bool any = false;
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    found[i] = matchRotary(graph, uses, i);
    any = any || found[i].has_value();
  }
  if (!any) {
    return;
  }
  std::vector<Node> rewritten;
  TableCache tables;
  const std::vector<Node> nodes = graph.nodes();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!found[i]) {
      rewritten.push_back(nodes[i]);
      continue;
    }
    RotaryWriter(graph, *found[i], rewritten, tables).write(nodes[i].outputs[0]);
  }
  graph.nodes() = std::move(rewritten);
  eliminateDeadCode(graph);
}

}  // namespace npu::compiler
