// The sink-nhwc-transposes pass: channels-last regions computed on their NCHW tensor.
//
// Every value v of a region has an NCHW twin t with v == Transpose(t, [0, 2, 3, 1]). Nodes are
// visited in order; a node whose activation inputs all have twins, and whose other inputs are
// constants, is replaced by nodes computing its output's twin. Afterwards each region value still
// read by a node that was not replaced (or a graph output) is rebuilt from its twin by one
// Transpose, so the rewrite is always correct, and it pays wherever the region ends in the
// transpose back, which becomes an Identity for simplify-reshapes to drop.
#include "npu/compiler/passes/sink_nhwc_transposes.h"

#include <algorithm>
#include <map>

#include "npu/compiler/ir/op_kind.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

const std::vector<std::int64_t> kToNhwc{0, 2, 3, 1};
const std::vector<std::int64_t> kToNchw{0, 3, 1, 2};

/// [N, H, W, C] -> [N, C, H, W].
Shape nchwOf(const Shape& nhwc) {
  return {nhwc[0], nhwc[3], nhwc[1], nhwc[2]};
}

bool isTranspose(const Graph& graph, const Node& node, const std::vector<std::int64_t>& perm) {
  return node.op == OpKind::Transpose && node.outputs.size() == 1 &&
         graph.value(node.input(0)).shape.size() == 4 &&
         node.attributes.getInts("perm", {}) == perm;
}

/// One region rewrite in progress: the twins found so far and the nodes computing them.
class Sinker {
 public:
  explicit Sinker(Graph& graph) : m_graph(graph) {}

  bool hasTwin(ValueId id) const { return m_twin.contains(id); }
  ValueId twinOf(ValueId id) const { return m_twin.at(id); }
  void setTwin(ValueId id, ValueId twin) { m_twin[id] = twin; }

  /// The nodes computing the twin of `node`'s output, or nothing when `node` cannot be sunk.
  std::optional<std::vector<Node>> sink(const Node& node) {
    bool readsRegion = std::any_of(node.inputs.begin(), node.inputs.end(),
                                   [&](ValueId id) { return id.valid() && hasTwin(id); });
    if (node.outputs.size() != 1 || !readsRegion ||
        (!isTwinElementwise(node.op) && !hasTwin(node.input(0)))) {
      return std::nullopt;
    }
    const Value& out = m_graph.value(node.outputs[0]);
    if (!out.typed || out.shape.size() != 4 || out.dtype != DType::Float32) {
      return std::nullopt;
    }
    m_base = node.name;
    m_nodes.clear();
    bool sunk = false;
    if (isTwinElementwise(node.op)) {
      sunk = sinkElementwise(node);
    } else if (isReduction(node.op)) {
      sunk = sinkReduction(node);
    } else if (node.op == OpKind::MatMul) {
      sunk = sinkMatMul(node);
    } else if (node.op == OpKind::LayerNormalization) {
      sunk = sinkLayerNorm(node);
    }
    if (!sunk) {
      return std::nullopt;
    }
    return std::move(m_nodes);
  }

 private:
  /// A new f32 intermediate of NCHW shape `shape`.
  ValueId intermediate(std::string_view suffix, Shape shape) {
    return addTypedIntermediate(m_graph, m_base + std::string(suffix), std::move(shape));
  }

  ValueId emit(OpKind op, std::vector<ValueId> inputs, ValueId out, Attributes attributes = {}) {
    return appendRewriteNode(m_graph, m_nodes, m_base, "/nchw", op, std::move(inputs), out,
                             std::move(attributes));
  }

  /// The twin operand for input `id` of an element-wise op: its twin, a scalar as it is, or a
  /// constant of rank <= 4 transposed like the data; nullopt otherwise.
  std::optional<ValueId> operand(ValueId id) {
    if (!id.valid()) {
      return id;
    }
    if (hasTwin(id)) {
      return twinOf(id);
    }
    const TensorData* data = constantData(m_graph, id);
    const Shape& shape = m_graph.value(id).shape;
    if (data == nullptr || shape.size() > 4 || data->dtype() != DType::Float32) {
      return std::nullopt;
    }
    if (data->size() == 1) {
      return id;
    }
    Shape nhwc(4 - shape.size(), 1);
    nhwc.insert(nhwc.end(), shape.begin(), shape.end());
    std::span<const float> in = data->floats();
    std::vector<float> out(in.size());
    std::int64_t n = nhwc[0];
    std::int64_t h = nhwc[1];
    std::int64_t w = nhwc[2];
    std::int64_t c = nhwc[3];
    for (std::int64_t in0 = 0; in0 < n; ++in0) {
      for (std::int64_t y = 0; y < h; ++y) {
        for (std::int64_t x = 0; x < w; ++x) {
          for (std::int64_t ch = 0; ch < c; ++ch) {
            out[((in0 * c + ch) * h + y) * w + x] = in[((in0 * h + y) * w + x) * c + ch];
          }
        }
      }
    }
    return addFloatConstant(m_graph, m_graph.value(id).name + ".nchw", nchwOf(nhwc),
                            std::move(out));
  }

  bool sinkElementwise(const Node& node) {
    std::vector<ValueId> inputs;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      // Clip's bounds are scalars and pass through `operand` unchanged.
      std::optional<ValueId> twin = operand(node.inputs[i]);
      if (!twin) {
        return false;
      }
      inputs.push_back(*twin);
    }
    ValueId out = intermediate(".nchw", nchwOf(m_graph.value(node.outputs[0]).shape));
    emit(node.op, std::move(inputs), out, node.attributes);
    setTwin(node.outputs[0], out);
    return true;
  }

  bool sinkReduction(const Node& node) {
    const TensorData* axes = constantData(m_graph, node.input(1));
    if (axes == nullptr || node.attributes.getInt("keepdims", 1) == 0) {
      return false;
    }
    std::vector<std::int64_t> a = axes->toInt64();
    if (a != std::vector<std::int64_t>{-1} && a != std::vector<std::int64_t>{3}) {
      return false;
    }
    ValueId channelAxis = addIndexConstant(m_graph, m_base + ".axes_nchw", {1});
    ValueId out = intermediate(".nchw", nchwOf(m_graph.value(node.outputs[0]).shape));
    emit(node.op, {twinOf(node.input(0)), channelAxis}, out, node.attributes);
    setTwin(node.outputs[0], out);
    return true;
  }

  /// [N, H, W, K] x [K, N'] as a 1x1 Conv of the [N, K, H, W] twin.
  bool sinkMatMul(const Node& node) {
    const TensorData* b = constantData(m_graph, node.input(1));
    const Shape& bShape = m_graph.value(node.input(1)).shape;
    if (b == nullptr || b->dtype() != DType::Float32 || bShape.size() != 2) {
      return false;
    }
    std::int64_t k = bShape[0];
    std::int64_t n = bShape[1];
    std::span<const float> values = b->floats();
    std::vector<float> weight(values.size());
    for (std::int64_t row = 0; row < k; ++row) {
      for (std::int64_t col = 0; col < n; ++col) {
        weight[col * k + row] = values[row * n + col];
      }
    }
    ValueId w = addFloatConstant(m_graph, m_base + ".weight_1x1", {n, k, 1, 1}, std::move(weight));
    ValueId out = intermediate(".conv", nchwOf(m_graph.value(node.outputs[0]).shape));
    Attributes attributes;
    attributes.set("kernel_shape", std::vector<std::int64_t>{1, 1});
    emit(OpKind::Conv, {twinOf(node.input(0)), w}, out, std::move(attributes));
    setTwin(node.outputs[0], out);
    return true;
  }

  /// LayerNormalization over the last axis, spelled out over axis 1 of the twin.
  bool sinkLayerNorm(const Node& node) {
    std::int64_t axis = node.attributes.getInt("axis", -1);
    if ((axis != -1 && axis != 3) || node.outputs.size() != 1) {
      return false;
    }
    std::optional<ValueId> scale = operand(node.input(1));
    std::optional<ValueId> bias = operand(node.input(2));
    if (!scale || !bias || !scale->valid()) {
      return false;
    }
    float epsilon = node.attributes.getFloat("epsilon", 1e-5F);
    ValueId x = twinOf(node.input(0));
    Shape shape = m_graph.value(x).shape;
    Shape reduced{shape[0], 1, shape[2], shape[3]};
    Attributes keep;
    keep.set("keepdims", std::int64_t{1});
    ValueId channelAxis = addIndexConstant(m_graph, m_base + ".axes_nchw", {1});
    ValueId eps = addFloatConstant(m_graph, m_base + ".epsilon", {}, {epsilon});
    ValueId mean = emit(OpKind::ReduceMean, {x, channelAxis}, intermediate(".mean", reduced), keep);
    ValueId centred = emit(OpKind::Sub, {x, mean}, intermediate(".centred", shape));
    ValueId square = emit(OpKind::Mul, {centred, centred}, intermediate(".square", shape));
    ValueId var =
        emit(OpKind::ReduceMean, {square, channelAxis}, intermediate(".variance", reduced), keep);
    ValueId shifted = emit(OpKind::Add, {var, eps}, intermediate(".var_eps", reduced));
    ValueId stddev = emit(OpKind::Sqrt, {shifted}, intermediate(".stddev", reduced));
    ValueId normed = emit(OpKind::Div, {centred, stddev}, intermediate(".normed", shape));
    ValueId out = emit(OpKind::Mul, {normed, *scale}, intermediate(".scaled", shape));
    if (bias->valid()) {
      out = emit(OpKind::Add, {out, *bias}, intermediate(".nchw", shape));
    }
    setTwin(node.outputs[0], out);
    return true;
  }

  Graph& m_graph;
  std::map<ValueId, ValueId> m_twin;
  std::string m_base;
  std::vector<Node> m_nodes;
};

/// A Transpose rebuilding the NHWC value `nhwc` from its twin.
Node transposeBack(Graph& graph, ValueId twin, ValueId nhwc) {
  Node node;
  node.name = graph.uniqueNodeName(graph.value(nhwc).name + "/to_nhwc");
  node.op = OpKind::Transpose;
  node.inputs = {twin};
  node.outputs = {nhwc};
  node.attributes.set("perm", kToNhwc);
  return node;
}

}  // namespace

void sinkNhwcTransposes(Graph& graph) {
  const std::vector<Node> nodes = graph.nodes();
  Sinker sinker(graph);
  // replaced[i]: the nodes standing for node i, when it was sunk.
  std::vector<std::optional<std::vector<Node>>> replaced(nodes.size());
  bool any = false;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const Node& node = nodes[i];
    // A second transpose to NHWC inside a region is an ordinary reader: its input is rebuilt.
    if (isTranspose(graph, node, kToNhwc) && !sinker.hasTwin(node.input(0))) {
      sinker.setTwin(node.outputs[0], node.input(0));
      replaced[i] = std::vector<Node>{};
    } else if (isTranspose(graph, node, kToNchw) && sinker.hasTwin(node.input(0))) {
      Node identity = node;
      identity.op = OpKind::Identity;
      identity.inputs = {sinker.twinOf(node.input(0))};
      identity.attributes = Attributes();
      replaced[i] = std::vector<Node>{std::move(identity)};
      any = true;
    } else {
      replaced[i] = sinker.sink(node);
      any = any || replaced[i].has_value();
    }
  }
  if (!any) {
    return;  // No region reaches an op worth moving: leave the transposes as they were.
  }
  // Region values read by a node that stays, or leaving the graph, are rebuilt from their twins.
  Uses uses(graph);
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
    ValueId out = nodes[i].outputs[0];
    if (!sinker.hasTwin(out)) {
      continue;  // the transpose back, now an Identity
    }
    bool readOutside = graph.isOutput(out);
    for (std::size_t reader : uses.consumers(out)) {
      readOutside = readOutside || !replaced[reader];
    }
    if (readOutside) {
      rewritten.push_back(transposeBack(graph, sinker.twinOf(out), out));
    }
  }
  graph.nodes() = std::move(rewritten);
}

}  // namespace npu::compiler
