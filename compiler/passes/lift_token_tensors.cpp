// The lift-token-tensors pass: transformer token tensors computed as images.
//
// Every value v of a region has an image twin t = [1, C, R, 1] (C = v's last dimension, R the
// product of the others) with v == Reshape(Transpose(t, [0, 2, 3, 1]), shape(v)): t's NHWC
// bytes are v's row-major bytes. Nodes are visited in order; a node whose activation inputs have
// twins (or can be given one) and whose other inputs are constants is replaced by nodes
// computing its output's twin. Afterwards each region value still read by a node that was not
// replaced (or a graph output) is rebuilt from its twin, so the rewrite is always correct; what
// nothing reads any more is dropped at the end.
#include "npu/compiler/passes/lift_token_tensors.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/ir/index_eval.h"
#include "npu/compiler/ir/op_kind.h"
#include "npu/compiler/passes/eliminate_dead_code.h"
#include "npu/support/error.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The largest operand a head split or merge is traced through (elements).
constexpr std::int64_t kMaxTracedElements = std::int64_t{1} << 24;
/// The longest Reshape/Transpose/scale chain followed from a MatMul operand or its result.
constexpr std::size_t kMaxChain = 8;

std::int64_t product(std::span<const std::int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
}

/// [d0, ..., dL] -> [1, dL, d0 * ... * d(L-1), 1].
Shape twinShapeOf(const Shape shape) {
  if (shape.empty()) {
    return {1, 1, 1, 1};
  }
  return {1, shape.back(), product(std::span(shape).first(shape.size() - 1)), 1};
}

/// True when the axes longer than 1 keep their order: the elements stay in row-major order.
bool keepsOrder(const Shape in, const std::vector<std::int64_t>& perm) {
  if (perm.size() != in.size()) {
    return false;
  }
  std::int64_t last = -1;
  for (const std::int64_t p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(in.size())) {
      return false;
    }
    if (in[static_cast<std::size_t>(p)] == 1) {
      continue;
    }
    if (p < last) {
      return false;
    }
    last = p;
  }
  return true;
}

bool isView(OpKind op) {
  return isReshapeLike(op) || op == OpKind::Transpose;
}

std::int64_t normalizedAxis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

/// Strides and offset of an index map that is affine in the indices of `shape`: map[i0, ...] =
/// offset + sum of i_d * strides[d]; nullopt when it is not, or a stride is negative.
struct AffineMap {
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;
};

std::optional<AffineMap> fitAffine(std::span<const std::int64_t> map, const Shape shape) {
  if (map.empty() || static_cast<std::int64_t>(map.size()) != product(shape)) {
    return std::nullopt;
  }
  AffineMap fit;
  fit.offset = map[0];
  std::int64_t unit = 1;
  fit.strides.assign(shape.size(), 0);
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] > 1) {
      fit.strides[d] = map[static_cast<std::size_t>(unit)] - map[0];
      if (fit.strides[d] < 0) {
        return std::nullopt;
      }
    }
    unit *= shape[d];
  }
  std::vector<std::int64_t> index(shape.size(), 0);
  std::int64_t expected = fit.offset;
  for (const std::int64_t value : map) {
    if (value != expected) {
      return std::nullopt;
    }
    // Next index in row-major order, keeping `expected` in step.
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        expected += fit.strides[d];
        break;
      }
      expected -= fit.strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return fit;
}

/// The heads, rows and columns of an affine view of a [batch..., rows, cols] operand, with
/// columns contiguous when `colsContiguous` (else rows contiguous, for b's KN/NK choice).
struct OperandView {
  std::int64_t heads = 1;
  MatrixView view;
  bool transposed = false;  ///< the stride-1 axis is the second-last one
};

std::optional<OperandView> operandView(const AffineMap& fit, const Shape shape,
                                       bool allowTransposed) {
  const std::size_t r = shape.size();
  if (r < 2) {
    return std::nullopt;
  }
  OperandView v;
  // Batch axes longer than 1 must nest into one head axis.
  std::int64_t headStride = 0;
  std::int64_t inner = -1;
  for (std::size_t d = r - 2; d-- > 0;) {
    if (shape[d] == 1) {
      continue;
    }
    if (inner >= 0 && fit.strides[d] != fit.strides[static_cast<std::size_t>(inner)] *
                                            shape[static_cast<std::size_t>(inner)]) {
      return std::nullopt;
    }
    if (inner < 0) {
      headStride = fit.strides[d];
    }
    inner = static_cast<std::int64_t>(d);
    v.heads *= shape[d];
  }
  const std::int64_t rows = shape[r - 2];
  const std::int64_t cols = shape[r - 1];
  const std::int64_t rowStride = fit.strides[r - 2];
  const std::int64_t colStride = fit.strides[r - 1];
  v.view.offset = fit.offset;
  v.view.headStride = headStride;
  if (cols == 1 || colStride == 1) {
    v.view.rowStride = rows == 1 ? cols : rowStride;
  } else if (allowTransposed && (rows == 1 || rowStride == 1)) {
    v.transposed = true;
    v.view.rowStride = cols == 1 ? rows : colStride;
  } else {
    return std::nullopt;
  }
  return v;
}

/// One region rewrite in progress: the twins found so far and the nodes computing them.
/// Shapes are copied, never held by reference: adding a value to the graph may move them.
class Lifter {
 public:
  Lifter(Graph& graph, const std::vector<Node>& nodes, const Uses& uses)
      : m_graph(graph), m_nodes(nodes), m_uses(uses) {}

  bool hasTwin(ValueId id) const { return m_twin.contains(id); }
  ValueId twinOf(ValueId id) const { return m_twin.at(id); }
  /// Ops that compute (not just move) on twins: the pass changes nothing without one.
  std::size_t liftedCompute() const { return m_compute; }

  /// The nodes computing the twin of node `index`'s output, or nothing when it stays. A head
  /// merge after a MatMul also claims the Reshape/Transpose nodes it absorbs in `replaced`.
  std::optional<std::vector<Node>> lift(std::size_t index,
                                        std::vector<std::optional<std::vector<Node>>>& replaced) {
    const Node& node = m_nodes[index];
    if (node.outputs.size() != 1) {
      return std::nullopt;
    }
    const Value& out = m_graph.value(node.outputs[0]);
    if (!out.typed || out.dtype != DType::Float32 || out.isConstant()) {
      return std::nullopt;
    }
    m_base = node.name;
    m_emitted.clear();
    m_newTwins.clear();
    const std::size_t computeBefore = m_compute;
    bool lifted = false;
    if (node.op == OpKind::Transpose) {
      lifted = liftTranspose(node);
    } else if (isReshapeLike(node.op)) {
      lifted = liftView(node);
    } else if (isTwinElementwise(node.op)) {
      lifted = liftElementwise(node);
    } else if (isReduction(node.op)) {
      lifted = liftReduction(node);
    } else if (node.op == OpKind::Softmax || node.op == OpKind::LogSoftmax) {
      lifted = liftSoftmax(node);
    } else if (node.op == OpKind::MatMul) {
      lifted = constantData(m_graph, node.input(1)) != nullptr ? liftLinear(node)
                                                               : liftHeadMatMul(node, replaced);
    } else if (node.op == OpKind::Gemm) {
      lifted = liftGemm(node);
    } else if (node.op == OpKind::LayerNormalization || node.op == OpKind::RMSNormalization) {
      lifted = liftLayerNorm(node);
    } else if (node.op == OpKind::Concat) {
      lifted = liftConcat(node);
    } else if (node.op == OpKind::Slice) {
      lifted = liftSlice(node);
    } else if (node.op == OpKind::Gather) {
      lifted = liftGather(node);
    }
    if (!lifted) {
      // Forget the twins this attempt gave (seeds, the output): their nodes are not emitted.
      for (const ValueId id : m_newTwins) {
        m_twin.erase(id);
      }
      m_compute = computeBefore;
      return std::nullopt;
    }
    return std::move(m_emitted);
  }

 private:
  void setTwin(ValueId id, ValueId twin) {
    m_twin[id] = twin;
    m_newTwins.push_back(id);
  }

  /// A new f32 intermediate of NCHW shape `shape`.
  ValueId intermediate(std::string_view suffix, Shape shape) {
    return addTypedIntermediate(m_graph, m_base + std::string(suffix), std::move(shape));
  }

  ValueId emit(OpKind op, std::vector<ValueId> inputs, ValueId out, Attributes attributes = {}) {
    return appendRewriteNode(m_graph, m_emitted, m_base, "/rows", op, std::move(inputs), out,
                             std::move(attributes));
  }

  /// The output's twin, registered.
  ValueId twinOutput(const Node& node, std::string_view suffix = ".rows") {
    ValueId out = intermediate(suffix, twinShapeOf(m_graph.value(node.outputs[0]).shape));
    setTwin(node.outputs[0], out);
    return out;
  }

  bool isFloatActivation(ValueId id) const {
    if (!id.valid()) {
      return false;
    }
    const Value& v = m_graph.value(id);
    return !v.isConstant() && v.dtype == DType::Float32 && v.typed;
  }

  /// A rank-2 or rank-3 activation from outside a region (not [1, C], which the NPU holds as an
  /// image already) gets its twin by a Reshape and a Transpose.
  /// Values that views or scalings of other values make are not seeded: attention's head
  /// split is traced through them from the MatMul instead.
  [[nodiscard]] bool seedable(ValueId id, bool cacheInput = false) const {
    if (!isFloatActivation(id)) {
      return false;
    }
    if (std::optional<std::size_t> p = m_uses.producer(id)) {
      const OpKind op = m_nodes[*p].op;
      if (isView(op) || op == OpKind::Mul || op == OpKind::Div) {
        return false;
      }
    }
    const Shape s = m_graph.value(id).shape;
    // A graph input of higher rank that a Concat extends with rows of a region (a KV cache
    // [1, heads, P, D] and its new row); no other rank-4 input (an image) is taken as tokens.
    const bool input = cacheInput && !m_uses.producer(id) && s.size() >= 4;
    return (s.size() == 3 || (s.size() == 2 && s[0] != 1) || input) && product(s) > 0;
  }

  /// `id`'s twin, seeding one when `seed` allows; nullopt when it has none.
  std::optional<ValueId> activationTwin(ValueId id, bool seed, bool cacheInput = false) {
    if (hasTwin(id)) {
      return twinOf(id);
    }
    if (!seed || !seedable(id, cacheInput)) {
      return std::nullopt;
    }
    return seedTwin(id);
  }

  /// Gives `id` a twin made by a Reshape and a Transpose of it.
  ValueId seedTwin(ValueId id) {
    const Shape s = m_graph.value(id).shape;
    const Shape twin = twinShapeOf(s);
    ValueId rows = intermediate(".as_rows", {1, twin[2], 1, twin[1]});
    emit(OpKind::Reshape, {id, addIndexConstant(m_graph, m_base + ".rows_shape", rows_(twin))},
         rows);
    Attributes perm;
    perm.set("perm", std::vector<std::int64_t>{0, 3, 1, 2});
    ValueId t = emit(OpKind::Transpose, {rows}, intermediate(".lifted", twin), std::move(perm));
    setTwin(id, t);
    return t;
  }

  static std::vector<std::int64_t> rows_(const Shape twin) { return {1, twin[2], 1, twin[1]}; }

  /// A constant moved to the twin layout of a value of (left-padded) shape `shape`.
  ValueId liftedConstant(ValueId id, const Shape shape, std::span<const float> values) {
    const Shape twin = twinShapeOf(shape);
    const std::int64_t c = twin[1];
    const std::int64_t r = twin[2];
    std::vector<float> out(values.size());
    for (std::int64_t row = 0; row < r; ++row) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        out[static_cast<std::size_t>(ch * r + row)] =
            values[static_cast<std::size_t>(row * c + ch)];
      }
    }
    return addFloatConstant(m_graph, m_graph.value(id).name + ".rows", twin, std::move(out));
  }

  /// The twin operand for input `id` of an element-wise op with output shape `out`: its twin
  /// (broadcast over channels when its last axis is 1), a scalar as it is, or a constant moved to
  /// the twin layout (per channel, per row or whole); nullopt otherwise.
  std::optional<ValueId> operand(ValueId id, const Shape out) {
    if (!id.valid()) {
      return id;
    }
    const Value& v = m_graph.value(id);
    if (v.shape.size() > out.size()) {
      return std::nullopt;
    }
    Shape s(out.size() - v.shape.size(), 1);
    s.insert(s.end(), v.shape.begin(), v.shape.end());
    const bool same = s == out;
    const bool perRow = !out.empty() && s.back() == 1 &&
                        std::equal(s.begin(), s.end() - 1, out.begin(), out.end() - 1);
    const bool perChannel =
        !out.empty() && s.back() == out.back() && product(std::span(s).first(s.size() - 1)) == 1;
    if (const TensorData* data = constantData(m_graph, id)) {
      if (data->size() == 1) {
        return id;
      }
      if (data->dtype() != DType::Float32) {
        return std::nullopt;
      }
      if (perChannel) {
        return addFloatConstant(m_graph, v.name + ".rows", {1, out.back(), 1, 1}, data->toFloat());
      }
      if (same || perRow) {
        return liftedConstant(id, s, data->floats());
      }
      if (broadcastsOverRows(s, out)) {
        // A constant broadcast over the rows (a causal mask over the heads): made whole.
        return liftedConstant(id, out, broadcastTo(data->floats(), s, out));
      }
      return std::nullopt;
    }
    if (!isFloatActivation(id)) {
      return std::nullopt;
    }
    if (hasTwin(id)) {
      return same || perRow ? std::optional(twinOf(id)) : std::nullopt;
    }
    if (!same && broadcastsOverRows(s, out)) {
      // An activation broadcast over the rows (an attention mask [1, 1, 1, L] added to the
      // scores of every head): expanded to the output's shape, then given a twin.
      const ValueId expanded = intermediate(".expanded", out);
      emit(OpKind::Expand, {id, addIndexConstant(m_graph, m_base + ".expand_shape", out)},
           expanded);
      return seedTwin(expanded);
    }
    return same && v.shape.size() == out.size() ? activationTwin(id, true) : std::nullopt;
  }

  /// `values` of shape `s` broadcast to `out` (numpy rules; `s` left-padded to out's rank).
  static std::vector<float> broadcastTo(std::span<const float> values, const Shape& s,
                                        const Shape& out) {
    std::vector<float> whole(static_cast<std::size_t>(product(out)));
    std::vector<std::int64_t> index(out.size(), 0);
    for (float& v : whole) {
      std::int64_t from = 0;
      for (std::size_t d = 0; d < out.size(); ++d) {
        from = from * s[d] + (s[d] == 1 ? 0 : index[d]);
      }
      v = values[static_cast<std::size_t>(from)];
      for (std::size_t d = out.size(); d-- > 0;) {
        if (++index[d] < out[d]) {
          break;
        }
        index[d] = 0;
      }
    }
    return whole;
  }

  /// `s` (left-padded to `out`'s rank) has `out`'s last axis and broadcasts along the others.
  static bool broadcastsOverRows(const Shape& s, const Shape& out) {
    if (s.size() != out.size() || out.empty() || s.back() != out.back()) {
      return false;
    }
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] != 1 && s[i] != out[i]) {
        return false;
      }
    }
    return true;
  }

  bool liftElementwise(const Node& node) {
    const Shape out = m_graph.value(node.outputs[0]).shape;
    bool readsActivation = false;
    std::vector<ValueId> inputs;
    for (const ValueId id : node.inputs) {
      std::optional<ValueId> twin = operand(id, out);
      if (!twin) {
        return false;
      }
      readsActivation = readsActivation || (id.valid() && isFloatActivation(id));
      inputs.push_back(*twin);
    }
    if (!readsActivation) {
      return false;
    }
    emit(node.op, std::move(inputs), twinOutput(node), node.attributes);
    return true;
  }

  bool liftView(const Node& node) {
    const Shape in = m_graph.value(node.input(0)).shape;
    const Shape out = m_graph.value(node.outputs[0]).shape;
    if (liftHeadMerge(node)) {
      return true;
    }
    if (!hasTwin(node.input(0)) || in.empty() || out.empty() || in.back() != out.back()) {
      return false;
    }
    setTwin(node.outputs[0], twinOf(node.input(0)));  // the same bytes: no node
    return true;
  }

  bool liftTranspose(const Node& node) {
    const Shape in = m_graph.value(node.input(0)).shape;
    const Shape out = m_graph.value(node.outputs[0]).shape;
    // No perm reverses the axes (ONNX).
    std::vector<std::int64_t> reversed(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
      reversed[i] = static_cast<std::int64_t>(in.size() - 1 - i);
    }
    const std::vector<std::int64_t> perm = node.attributes.getInts("perm", reversed);
    if (liftHeadSplit(node, perm)) {
      return true;
    }
    if (hasTwin(node.input(0))) {
      if (in.size() == 3 && in[0] == 1 && perm == std::vector<std::int64_t>{0, 2, 1}) {
        // Tokens [1, T, D] back to [1, D, T]: the twin's own NCHW elements, so a Reshape of it
        // makes the output itself (no twin; a region ends here).
        emit(OpKind::Reshape,
             {twinOf(node.input(0)),
              addIndexConstant(m_graph, m_base + ".channels_shape", {1, in[2], in[1]})},
             node.outputs[0]);
        return true;
      }
      if (!keepsOrder(in, perm) || in.empty() || out.empty() || in.back() != out.back()) {
        return false;
      }
      setTwin(node.outputs[0], twinOf(node.input(0)));
      return true;
    }
    // [1, A, B] -> [1, B, A] (a patch embedding's tokens): the twin is [1, A, B, 1] as it is.
    if (!isFloatActivation(node.input(0)) || in.size() != 3 || in[0] != 1 ||
        perm != std::vector<std::int64_t>{0, 2, 1}) {
      return false;
    }
    emit(OpKind::Reshape,
         {node.input(0), addIndexConstant(m_graph, m_base + ".rows_shape", {1, in[1], in[2], 1})},
         twinOutput(node));
    return true;
  }

  /// A Slice [begin, end) of a twin along its channels (`axis` 1) or rows (2), of `shape`.
  ValueId sliceOfTwin(ValueId twin, std::int64_t axis, std::int64_t begin, std::int64_t end,
                      Shape shape) {
    const ValueId block = intermediate(".block", std::move(shape));
    emit(OpKind::Slice,
         {twin, addIndexConstant(m_graph, m_base + ".starts", {begin}),
          addIndexConstant(m_graph, m_base + ".ends", {end}),
          addIndexConstant(m_graph, m_base + ".axes", {axis})},
         block);
    return block;
  }

  /// Attention's head split, Transpose(Reshape(P, [1, T, H, D]), [0, 2, 1, 3]) of a token
  /// tensor P [1, T, H * D] with a twin, when nothing traces it as HeadMatMul strides (a KV
  /// cache's new row): the twin of the heads [1, H, T, D] is P's twin cut into its H channel
  /// blocks, stacked as rows (head by head, the tokens of each).
  bool liftHeadSplit(const Node& node, const std::vector<std::int64_t>& perm) {
    const Shape out = m_graph.value(node.outputs[0]).shape;
    const std::optional<std::size_t> reshape = m_uses.producer(node.input(0));
    if (perm != std::vector<std::int64_t>{0, 2, 1, 3} || out.size() != 4 || out[0] != 1 ||
        !reshape || !isReshapeLike(m_nodes[*reshape].op)) {
      return false;
    }
    const ValueId p = m_nodes[*reshape].input(0);
    const Shape tokens = m_graph.value(p).shape;
    const std::int64_t heads = out[1];
    const std::int64_t t = out[2];
    const std::int64_t d = out[3];
    if (!hasTwin(p) || tokens.empty() || tokens.back() != heads * d || heads < 2 ||
        product(tokens) != heads * t * d) {
      return false;
    }
    std::vector<ValueId> blocks;
    for (std::int64_t h = 0; h < heads; ++h) {
      blocks.push_back(sliceOfTwin(twinOf(p), 1, h * d, (h + 1) * d, {1, d, t, 1}));
    }
    Attributes rows;
    rows.set("axis", std::int64_t{2});
    emit(OpKind::Concat, std::move(blocks), twinOutput(node), std::move(rows));
    return true;
  }

  /// Attention's head merge, Reshape(Transpose(X, [0, 2, 1, 3]), [1, T, H * D]) of heads X
  /// [1, H, T, D] with a twin, when no HeadMatMul wrote it at strides: the merged twin is X's
  /// row blocks (one per head) side by side as channels.
  bool liftHeadMerge(const Node& node) {
    const Shape out = m_graph.value(node.outputs[0]).shape;
    const std::optional<std::size_t> transpose = m_uses.producer(node.input(0));
    if (!transpose || m_nodes[*transpose].op != OpKind::Transpose ||
        m_nodes[*transpose].attributes.getInts("perm", {}) !=
            std::vector<std::int64_t>{0, 2, 1, 3}) {
      return false;
    }
    const ValueId x = m_nodes[*transpose].input(0);
    const Shape heads = m_graph.value(x).shape;
    if (!hasTwin(x) || heads.size() != 4 || heads[0] != 1 || heads[1] < 2 || out.empty() ||
        out.back() != heads[1] * heads[3] || product(out) != product(heads)) {
      return false;
    }
    const std::int64_t t = heads[2];
    const std::int64_t d = heads[3];
    std::vector<ValueId> blocks;
    for (std::int64_t h = 0; h < heads[1]; ++h) {
      blocks.push_back(sliceOfTwin(twinOf(x), 2, h * t, (h + 1) * t, {1, d, t, 1}));
    }
    Attributes channels;
    channels.set("axis", std::int64_t{1});
    emit(OpKind::Concat, std::move(blocks), twinOutput(node), std::move(channels));
    return true;
  }

  bool liftReduction(const Node& node) {
    const TensorData* axes = constantData(m_graph, node.input(1));
    const Shape in = m_graph.value(node.input(0)).shape;
    if (axes == nullptr || in.empty() || node.attributes.getInt("keepdims", 1) == 0) {
      return false;
    }
    std::vector<std::int64_t> a = axes->toInt64();
    if (a.size() != 1 ||
        normalizedAxis(a[0], in.size()) != static_cast<std::int64_t>(in.size()) - 1) {
      return false;
    }
    std::optional<ValueId> x = activationTwin(node.input(0), true);
    if (!x) {
      return false;
    }
    ValueId channelAxis = addIndexConstant(m_graph, m_base + ".axes_rows", {1});
    emit(node.op, {*x, channelAxis}, twinOutput(node), node.attributes);
    ++m_compute;
    return true;
  }

  bool liftSoftmax(const Node& node) {
    const Shape in = m_graph.value(node.input(0)).shape;
    if (in.empty() || normalizedAxis(node.attributes.getInt("axis", -1), in.size()) !=
                          static_cast<std::int64_t>(in.size()) - 1) {
      return false;
    }
    std::optional<ValueId> x = activationTwin(node.input(0), true);
    if (!x) {
      return false;
    }
    Attributes attributes;
    attributes.set("axis", std::int64_t{1});
    emit(node.op, {*x}, twinOutput(node), std::move(attributes));
    ++m_compute;
    return true;
  }

  /// A 1x1 Conv of the twin with weights [N, K, 1, 1] and an optional bias.
  void emitConv(const Node& node, ValueId x, std::vector<float> weight, std::int64_t n,
                std::int64_t k, std::optional<std::vector<float>> bias) {
    std::vector<ValueId> inputs{
        x, addFloatConstant(m_graph, m_base + ".weight_1x1", {n, k, 1, 1}, std::move(weight))};
    if (bias) {
      inputs.push_back(addFloatConstant(m_graph, m_base + ".bias_1x1", {n}, std::move(*bias)));
    }
    Attributes attributes;
    attributes.set("kernel_shape", std::vector<std::int64_t>{1, 1});
    emit(OpKind::Conv, std::move(inputs), twinOutput(node, ".conv"), std::move(attributes));
    ++m_compute;
  }

  /// [..., K] x [K, N] as a 1x1 Conv of the twin.
  bool liftLinear(const Node& node) {
    const TensorData* b = constantData(m_graph, node.input(1));
    const Shape bShape = m_graph.value(node.input(1)).shape;
    const Shape in = m_graph.value(node.input(0)).shape;
    if (b == nullptr || b->dtype() != DType::Float32 || bShape.size() != 2 || in.size() < 2 ||
        in.back() != bShape[0]) {
      return false;
    }
    const std::int64_t k = bShape[0];
    const std::int64_t n = bShape[1];
    std::span<const float> values = b->floats();
    std::vector<float> weight(values.size());
    for (std::int64_t row = 0; row < k; ++row) {
      for (std::int64_t col = 0; col < n; ++col) {
        weight[static_cast<std::size_t>(col * k + row)] =
            values[static_cast<std::size_t>(row * n + col)];
      }
    }
    // Last: a seed adds values to the graph, which may move the constants read above.
    std::optional<ValueId> x = activationTwin(node.input(0), true);
    if (!x) {
      return false;
    }
    emitConv(node, *x, std::move(weight), n, k, std::nullopt);
    return true;
  }

  /// Gemm of [R, K] tokens (R > 1; a [1, K] Gemm is gemm-to-conv's) by constant B and C.
  bool liftGemm(const Node& node) {
    const Shape in = m_graph.value(node.input(0)).shape;
    const TensorData* b = constantData(m_graph, node.input(1));
    const Shape bShape = m_graph.value(node.input(1)).shape;
    // A Gemm of one row [1, K] is an FC on the NPU's image form unless its input is a twin
    // already (a decode step's single token).
    if (in.size() != 2 || (in[0] == 1 && !hasTwin(node.input(0))) || b == nullptr ||
        b->dtype() != DType::Float32 || bShape.size() != 2 ||
        node.attributes.getInt("transA", 0) != 0) {
      return false;
    }
    const bool transB = node.attributes.getInt("transB", 0) != 0;
    const std::int64_t k = transB ? bShape[1] : bShape[0];
    const std::int64_t n = transB ? bShape[0] : bShape[1];
    if (k != in[1]) {
      return false;
    }
    const float alpha = node.attributes.getFloat("alpha", 1.0F);
    const float beta = node.attributes.getFloat("beta", 1.0F);
    std::optional<std::vector<float>> bias;
    if (node.input(2).valid()) {
      const TensorData* c = constantData(m_graph, node.input(2));
      if (c == nullptr || c->dtype() != DType::Float32 ||
          (c->size() != 1 && static_cast<std::int64_t>(c->size()) != n) ||
          (m_graph.value(node.input(2)).shape.size() == 2 &&
           m_graph.value(node.input(2)).shape[0] != 1)) {
        return false;
      }
      std::vector<float> values = c->toFloat();
      if (values.size() == 1) {
        values.assign(static_cast<std::size_t>(n), values[0]);
      }
      for (float& v : values) {
        v *= beta;
      }
      bias = std::move(values);
    }
    std::span<const float> values = b->floats();
    std::vector<float> weight(values.size());
    for (std::int64_t row = 0; row < k; ++row) {
      for (std::int64_t col = 0; col < n; ++col) {
        const std::size_t from = static_cast<std::size_t>(transB ? col * k + row : row * n + col);
        weight[static_cast<std::size_t>(col * k + row)] = alpha * values[from];
      }
    }
    // Last: a seed adds values to the graph, which may move the constants read above.
    std::optional<ValueId> x = activationTwin(node.input(0), true);
    if (!x) {
      return false;
    }
    emitConv(node, *x, std::move(weight), n, k, std::move(bias));
    return true;
  }

  /// LayerNormalization (RMSNormalization) over the last axis: a ChannelLayerNorm
  /// (ChannelRmsNorm) of the twin, then its scale and bias per channel.
  bool liftLayerNorm(const Node& node) {
    const bool rms = node.op == OpKind::RMSNormalization;
    const Shape in = m_graph.value(node.input(0)).shape;
    if (in.empty() || normalizedAxis(node.attributes.getInt("axis", -1), in.size()) !=
                          static_cast<std::int64_t>(in.size()) - 1) {
      return false;
    }
    std::optional<ValueId> scale = operand(node.input(1), in);
    std::optional<ValueId> bias = operand(node.input(2), in);
    if (!scale || !bias || (!rms && !scale->valid()) ||
        (scale->valid() && constantData(m_graph, node.input(1)) == nullptr) ||
        (node.input(2).valid() && constantData(m_graph, node.input(2)) == nullptr)) {
      return false;
    }
    std::optional<ValueId> x = activationTwin(node.input(0), true);
    if (!x) {
      return false;
    }
    const Shape twin = twinShapeOf(in);
    Attributes attributes;
    attributes.set("epsilon", node.attributes.getFloat("epsilon", 1e-5F));
    const OpKind channelNorm = rms ? OpKind::ChannelRmsNorm : OpKind::ChannelLayerNorm;
    if (!scale->valid()) {  // an RMSNormalization without a weight
      emit(channelNorm, {*x}, twinOutput(node), std::move(attributes));
      ++m_compute;
      return true;
    }
    ValueId normed = emit(channelNorm, {*x}, intermediate(".normed", twin), std::move(attributes));
    if (!bias->valid()) {
      emit(OpKind::Mul, {normed, *scale}, twinOutput(node));
    } else {
      ValueId scaled = emit(OpKind::Mul, {normed, *scale}, intermediate(".scaled", twin));
      emit(OpKind::Add, {scaled, *bias}, twinOutput(node));
    }
    ++m_compute;
    return true;
  }

  /// A Concat along the last axis (twins' channels) or along an axis with only 1s before it
  /// (the twins' rows, one block after another).
  bool liftConcat(const Node& node) {
    const Shape out = m_graph.value(node.outputs[0]).shape;
    if (out.empty()) {
      return false;
    }
    const std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), out.size());
    const bool channels = axis == static_cast<std::int64_t>(out.size()) - 1;
    if (axis < 0) {
      return false;
    }
    bool readsTwin = false;
    for (const ValueId id : node.inputs) {
      const TensorData* data = constantData(m_graph, id);
      if (m_graph.value(id).shape.size() != out.size() ||
          (data != nullptr && data->dtype() != DType::Float32)) {
        return false;
      }
      readsTwin = readsTwin || hasTwin(id);
    }
    if (!readsTwin) {
      return false;
    }
    std::vector<ValueId> inputs;
    for (const ValueId id : node.inputs) {
      if (const TensorData* data = constantData(m_graph, id)) {
        inputs.push_back(liftedConstant(id, m_graph.value(id).shape, data->floats()));
        continue;
      }
      std::optional<ValueId> twin = activationTwin(id, true, true);
      if (!twin) {
        return false;
      }
      inputs.push_back(*twin);
    }
    const std::int64_t outer =
        channels ? 1 : product(std::span(out).first(static_cast<std::size_t>(axis)));
    if (outer > 1) {
      inputs = interleavedRows(inputs, outer);
    }
    Attributes attributes;
    attributes.set("axis", std::int64_t{channels ? 1 : 2});
    emit(OpKind::Concat, std::move(inputs), twinOutput(node), std::move(attributes));
    return true;
  }

  /// A Concat along an axis with `outer` > 1 elements before it (a KV cache's tokens, after its
  /// heads) is a Concat of twin rows taking, for each outer index in turn, that index's block of
  /// rows from every input: the blocks as Slices of the input twins, in output order.
  std::vector<ValueId> interleavedRows(const std::vector<ValueId>& twins, std::int64_t outer) {
    std::vector<ValueId> blocks;
    for (std::int64_t o = 0; o < outer; ++o) {
      for (const ValueId twin : twins) {
        const Shape t = m_graph.value(twin).shape;
        const std::int64_t rows = t[2] / outer;
        blocks.push_back(sliceOfTwin(twin, 2, o * rows, (o + 1) * rows, {1, t[1], rows, 1}));
      }
    }
    return blocks;
  }

  /// A Slice of the twin: [begin, end) along `twinAxis` (1 channels, 2 rows).
  void emitSlice(const Node& node, ValueId x, std::int64_t twinAxis, std::int64_t begin,
                 std::int64_t end) {
    emit(OpKind::Slice,
         {x, addIndexConstant(m_graph, m_base + ".starts", {begin}),
          addIndexConstant(m_graph, m_base + ".ends", {end}),
          addIndexConstant(m_graph, m_base + ".axes", {twinAxis})},
         twinOutput(node));
  }

  /// A Slice along one axis at step 1: the last axis (twin channels), or an axis with only 1s
  /// before it (a run of twin rows).
  bool liftSlice(const Node& node) {
    if (!hasTwin(node.input(0))) {
      return false;
    }
    const Shape in = m_graph.value(node.input(0)).shape;
    const Shape out = m_graph.value(node.outputs[0]).shape;
    const TensorData* starts = constantData(m_graph, node.input(1));
    const TensorData* axes = constantData(m_graph, node.input(3));
    const TensorData* steps = constantData(m_graph, node.input(4));
    if (starts == nullptr || constantData(m_graph, node.input(2)) == nullptr ||
        (node.input(3).valid() && axes == nullptr) || (node.input(4).valid() && steps == nullptr) ||
        starts->size() != 1 || in.size() != out.size() || in.empty()) {
      return false;
    }
    const std::int64_t axis =
        axes != nullptr ? normalizedAxis(axes->toInt64().at(0), in.size()) : 0;
    if (axis < 0 || axis >= static_cast<std::int64_t>(in.size()) ||
        (steps != nullptr && steps->toInt64().at(0) != 1)) {
      return false;
    }
    const auto a = static_cast<std::size_t>(axis);
    std::int64_t begin = starts->toInt64()[0];
    begin = std::clamp(begin < 0 ? begin + in[a] : begin, std::int64_t{0}, in[a]);
    if (a + 1 == in.size()) {
      emitSlice(node, twinOf(node.input(0)), 1, begin, begin + out[a]);
      return true;
    }
    if (product(std::span(in).first(a)) != 1) {
      return false;
    }
    const std::int64_t inner = product(std::span(in).subspan(a + 1, in.size() - a - 2));
    emitSlice(node, twinOf(node.input(0)), 2, begin * inner, (begin + out[a]) * inner);
    return true;
  }

  /// A Gather of one index along an axis with only 1s before it (a ViT's class token).
  bool liftGather(const Node& node) {
    const TensorData* indices = constantData(m_graph, node.input(1));
    if (!hasTwin(node.input(0)) || indices == nullptr || indices->size() != 1) {
      return false;
    }
    const Shape in = m_graph.value(node.input(0)).shape;
    const std::int64_t axis = normalizedAxis(node.attributes.getInt("axis", 0), in.size());
    if (axis < 0 || axis + 1 >= static_cast<std::int64_t>(in.size())) {
      return false;
    }
    const auto a = static_cast<std::size_t>(axis);
    if (product(std::span(in).first(a)) != 1) {
      return false;
    }
    std::int64_t index = indices->toInt64()[0];
    index = index < 0 ? index + in[a] : index;
    if (index < 0 || index >= in[a]) {
      return false;
    }
    const std::int64_t inner = product(std::span(in).subspan(a + 1, in.size() - a - 2));
    emitSlice(node, twinOf(node.input(0)), 2, index * inner, (index + 1) * inner);
    return true;
  }

  // ---- MatMul of two activations: attention --------------------------------------------------

  /// Where a MatMul operand comes from: a value with a twin, moved by `views` (in order) and
  /// scaled by `alpha`.
  struct Trace {
    ValueId source;
    std::vector<const Node*> views;
    float alpha = 1.0F;
  };

  /// The scale a scalar Mul or Div by a constant applies to its activation input, which it
  /// names in `from`; nullopt for any other node.
  std::optional<float> scalarScale(const Node& n, ValueId& from) const {
    std::optional<float> c0 = scalarConstant(m_graph, n.input(0));
    std::optional<float> c1 = scalarConstant(m_graph, n.input(1));
    if (n.op == OpKind::Mul && (c0.has_value() != c1.has_value())) {
      from = c0 ? n.input(1) : n.input(0);
      return c0 ? *c0 : *c1;
    }
    if (n.op == OpKind::Div && c1 && !c0 && *c1 != 0.0F) {
      from = n.input(0);
      return 1.0F / *c1;
    }
    return std::nullopt;
  }

  /// Walks back from `id` through reshapes, transposes, slices and scalar scalings to the
  /// farthest value with a twin: the slices of a fused qkv projection are read in place.
  std::optional<Trace> traceOperand(ValueId id) const {
    Trace t;
    std::optional<Trace> best;
    while (true) {
      if (hasTwin(id)) {
        best = t;
        best->source = id;
      }
      std::optional<std::size_t> p = m_uses.producer(id);
      if (!p || t.views.size() >= kMaxChain) {
        break;
      }
      const Node& n = m_nodes[*p];
      if (n.outputs.size() != 1) {
        break;
      }
      if (isView(n.op) || n.op == OpKind::Slice) {
        t.views.push_back(&n);
        id = n.input(0);
        continue;
      }
      ValueId from;
      std::optional<float> scale = scalarScale(n, from);
      if (!scale) {
        break;
      }
      t.alpha *= *scale;
      id = from;
    }
    if (best) {
      std::reverse(best->views.begin(), best->views.end());
    }
    return best;
  }

  /// Runs `views` on an index tensor of `shape` (element i holds `start[i]`): where each element
  /// of the last view's output came from.
  std::optional<Tensor> runViews(const Shape shape, std::vector<std::int64_t> start,
                                 std::span<const Node* const> views) const {
    if (product(shape) > kMaxTracedElements) {
      return std::nullopt;
    }
    Tensor current{shape, TensorData(std::move(start))};
    for (const Node* view : views) {
      std::vector<Tensor> constants;
      constants.reserve(view->inputs.size());
      std::vector<const Tensor*> inputs{&current};
      for (std::size_t i = 1; i < view->inputs.size(); ++i) {
        const TensorData* data = constantData(m_graph, view->inputs[i]);
        if (view->inputs[i].valid() && data == nullptr) {
          return std::nullopt;
        }
        if (data == nullptr) {
          inputs.push_back(nullptr);
          continue;
        }
        constants.push_back(Tensor{m_graph.value(view->inputs[i]).shape, *data});
        inputs.push_back(&constants.back());
      }
      try {
        std::vector<Tensor> out = evaluateIndexOp(*view, inputs);
        current = std::move(out.at(0));
      } catch (const Error&) {
        return std::nullopt;
      }
    }
    return current;
  }

  static std::vector<std::int64_t> iota(std::int64_t count) {
    std::vector<std::int64_t> v(static_cast<std::size_t>(count));
    std::iota(v.begin(), v.end(), std::int64_t{0});
    return v;
  }

  /// The view of MatMul operand `id` in its source's twin bytes.
  std::optional<std::pair<Trace, OperandView>> operandOf(ValueId id, bool allowTransposed) const {
    std::optional<Trace> trace = traceOperand(id);
    if (!trace) {
      return std::nullopt;
    }
    const Shape source = m_graph.value(trace->source).shape;
    std::optional<Tensor> map = runViews(source, iota(product(source)), trace->views);
    const Shape shape = m_graph.value(id).shape;
    if (!map || map->shape != shape) {
      return std::nullopt;
    }
    std::optional<AffineMap> fit = fitAffine(map->data.int64s(), shape);
    if (!fit) {
      return std::nullopt;
    }
    std::optional<OperandView> view = operandView(*fit, shape, allowTransposed);
    if (!view) {
      return std::nullopt;
    }
    return std::pair{std::move(*trace), *view};
  }

  bool liftHeadMatMul(const Node& node, std::vector<std::optional<std::vector<Node>>>& replaced) {
    if (!isFloatActivation(node.input(0)) || !isFloatActivation(node.input(1))) {
      return false;
    }
    auto a = operandOf(node.input(0), false);
    auto b = operandOf(node.input(1), true);
    const Shape y = m_graph.value(node.outputs[0]).shape;
    const Shape aShape = m_graph.value(node.input(0)).shape;
    const Shape bShape = m_graph.value(node.input(1)).shape;
    if (!a || !b || y.size() < 2 || aShape.size() < 2 || bShape.size() < 2 ||
        (b->second.heads != a->second.heads && b->second.heads != 1)) {
      return false;
    }
    HeadMatMulGeometry g;
    g.heads = a->second.heads;
    g.m = aShape[aShape.size() - 2];
    g.k = aShape.back();
    g.n = bShape.back();
    g.a = a->second.view;
    g.b = b->second.view;
    if (b->second.heads == 1) {
      g.b.headStride = 0;  // one b for every head
    }
    g.bRowsAreN = b->second.transposed;
    if (product(y) != g.heads * g.m * g.n) {
      return false;
    }
    // The result goes into the last value of its single-reader Reshape/Transpose chain whose
    // bytes hold it at strides (the head merge); into [heads][M][N] planes when none does.
    // A scalar scaling in the chain (the scores' 1/sqrt(d)) joins alpha.
    std::vector<std::size_t> chain;
    ValueId z = node.outputs[0];
    while (chain.size() < kMaxChain && !m_graph.isOutput(z) && m_uses.hasSingleUse(z)) {
      const std::size_t reader = m_uses.consumers(z)[0];
      const Node& next = m_nodes[reader];
      ValueId from;
      if ((!isView(next.op) && !(scalarScale(next, from) && from == z)) ||
          next.outputs.size() != 1 || replaced[reader]) {
        break;
      }
      chain.push_back(reader);
      z = next.outputs[0];
    }
    std::size_t absorbed = chain.size();
    float outputAlpha = 1.0F;
    for (;; --absorbed) {
      const ValueId target =
          absorbed == 0 ? node.outputs[0] : m_nodes[chain[absorbed - 1]].outputs[0];
      std::vector<const Node*> views;
      outputAlpha = 1.0F;
      for (std::size_t i = 0; i < absorbed; ++i) {
        ValueId from;
        if (std::optional<float> scale = scalarScale(m_nodes[chain[i]], from)) {
          outputAlpha *= *scale;
        } else {
          views.push_back(&m_nodes[chain[i]]);
        }
      }
      std::optional<Tensor> map = runViews(y, iota(product(y)), views);
      if (map && map->shape == m_graph.value(target).shape) {
        // map[p] = which element of y lands at position p; invert it to where y's elements go.
        std::span<const std::int64_t> from = map->data.int64s();
        std::vector<std::int64_t> to(from.size());
        for (std::size_t p = 0; p < from.size(); ++p) {
          to[static_cast<std::size_t>(from[p])] = static_cast<std::int64_t>(p);
        }
        std::optional<AffineMap> fit = fitAffine(to, y);
        std::optional<OperandView> view =
            fit ? operandView(*fit, y, false) : std::optional<OperandView>();
        if (view && view->heads == g.heads) {
          g.y = view->view;
          z = target;
          break;
        }
      }
      if (absorbed == 0) {
        return false;
      }
    }
    try {
      checkHeadMatMulGeometry(g, product(m_graph.value(a->first.source).shape),
                              product(m_graph.value(b->first.source).shape), product(y));
    } catch (const Error&) {
      return false;
    }
    Attributes attributes;
    setHeadMatMulGeometry(attributes, g);
    attributes.set("alpha", a->first.alpha * b->first.alpha * outputAlpha);
    const Shape twin = twinShapeOf(m_graph.value(z).shape);
    attributes.set("shape", twin);
    ValueId out = intermediate(".heads", twin);
    emit(OpKind::HeadMatMul, {twinOf(a->first.source), twinOf(b->first.source)}, out,
         std::move(attributes));
    setTwin(z, out);
    for (std::size_t i = 0; i < absorbed; ++i) {
      replaced[chain[i]] = std::vector<Node>{};
    }
    ++m_compute;
    return true;
  }

  Graph& m_graph;
  const std::vector<Node>& m_nodes;
  const Uses& m_uses;
  std::map<ValueId, ValueId> m_twin;
  std::vector<ValueId> m_newTwins;
  std::string m_base;
  std::vector<Node> m_emitted;
  std::size_t m_compute = 0;
};

/// The nodes rebuilding value `v` from its twin: a Reshape when the twin is one row, else a
/// Transpose to [1, R, 1, C] and a Reshape.
std::vector<Node> rebuild(Graph& graph, ValueId twin, ValueId v) {
  const Shape t = graph.value(twin).shape;
  const std::string base = graph.value(v).name;
  std::vector<Node> nodes;
  ValueId from = twin;
  if (t[2] != 1) {
    Node transpose;
    transpose.name = graph.uniqueNodeName(base + "/from_rows");
    transpose.op = OpKind::Transpose;
    transpose.inputs = {twin};
    from = graph.addIntermediate(graph.uniqueValueName(base + ".from_rows"));
    graph.value(from).shape = {1, t[2], 1, t[1]};
    graph.value(from).typed = true;
    transpose.outputs = {from};
    transpose.attributes.set("perm", std::vector<std::int64_t>{0, 2, 3, 1});
    nodes.push_back(std::move(transpose));
  }
  Node reshape;
  reshape.name = graph.uniqueNodeName(base + "/to_tokens");
  reshape.op = OpKind::Reshape;
  reshape.inputs = {from, addIndexConstant(graph, base + ".tokens_shape", graph.value(v).shape)};
  reshape.outputs = {v};
  nodes.push_back(std::move(reshape));
  return nodes;
}

}  // namespace

void liftTokenTensors(Graph& graph) {
  const std::vector<Node> nodes = graph.nodes();
  const Uses uses(graph);
  Lifter lifter(graph, nodes, uses);
  // replaced[i]: the nodes standing for node i, when it was lifted.
  std::vector<std::optional<std::vector<Node>>> replaced(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!replaced[i]) {
      replaced[i] = lifter.lift(i, replaced);
    }
  }
  if (lifter.liftedCompute() == 0) {
    return;  // Nothing but moves: leave the graph as it was.
  }
  std::vector<Node> rewritten;
  rewritten.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!replaced[i]) {
      rewritten.push_back(nodes[i]);
      continue;
    }
    for (Node& node : *replaced[i]) {
      rewritten.push_back(std::move(node));
    }
    const ValueId out = nodes[i].outputs[0];
    if (!lifter.hasTwin(out)) {
      continue;  // inside a head merge: its only reader was absorbed too
    }
    bool readOutside = graph.isOutput(out);
    for (const std::size_t reader : uses.consumers(out)) {
      readOutside = readOutside || !replaced[reader];
    }
    if (readOutside) {
      for (Node& node : rebuild(graph, lifter.twinOf(out), out)) {
        rewritten.push_back(std::move(node));
      }
    }
  }
  graph.nodes() = std::move(rewritten);
  eliminateDeadCode(graph);
}

}  // namespace npu::compiler
