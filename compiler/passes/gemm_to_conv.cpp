// The gemm-to-conv pass: fully connected layers become Reshape -> 1x1 Conv -> Reshape.
#include "npu/compiler/passes/gemm_to_conv.h"

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// A fully connected layer y[m, n] = sum_k x[m, k] * weight[n, k] + bias[n].
struct Linear {
  std::vector<float> weight;  ///< [N, K]
  std::vector<float> bias;    ///< [N]
  /// The weight's given quantization (a QDQ model's), per output channel; kept when the weight
  /// is only transposed.
  std::optional<QuantParams> weightQuant;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t n = 0;
};

/// The Gemm or MatMul at `node` as a Linear, when it is one.
std::optional<Linear> asLinear(const Graph& graph, const Node& node) {
  if (node.op != OpKind::Gemm && node.op != OpKind::MatMul) {
    return std::nullopt;
  }
  const Value& a = graph.value(node.input(0));
  const TensorData* b = constantData(graph, node.input(1));
  if (a.shape.size() != 2 || b == nullptr || graph.value(node.input(1)).shape.size() != 2) {
    return std::nullopt;
  }
  bool transB = false;
  float alpha = 1.0F;
  float beta = 1.0F;
  if (node.op == OpKind::Gemm) {
    if (node.attributes.getInt("transA", 0) != 0) {
      return std::nullopt;
    }
    transB = node.attributes.getInt("transB", 0) != 0;
    alpha = node.attributes.getFloat("alpha", 1.0F);
    beta = node.attributes.getFloat("beta", 1.0F);
  }
  const Shape& bShape = graph.value(node.input(1)).shape;
  Linear linear;
  linear.m = a.shape[0];
  linear.k = a.shape[1];
  linear.n = transB ? bShape[0] : bShape[1];
  std::span<const float> bValues = b->floats();
  linear.weight.resize(static_cast<std::size_t>(linear.n * linear.k));
  for (std::int64_t n = 0; n < linear.n; ++n) {
    for (std::int64_t k = 0; k < linear.k; ++k) {
      float v = transB ? bValues[n * linear.k + k] : bValues[k * linear.n + n];
      linear.weight[n * linear.k + k] = alpha * v;
    }
  }
  if (const std::optional<QuantParams>& q = graph.value(node.input(1)).quant; q && alpha == 1.0F) {
    std::int64_t outputAxis = transB ? 0 : 1;
    if (q->scales.size() == 1 || q->axis == outputAxis) {
      linear.weightQuant = QuantParams{q->scales, q->zeroPoints, q->scales.size() == 1 ? -1 : 0};
    }
  }
  linear.bias.assign(static_cast<std::size_t>(linear.n), 0.0F);
  ValueId c = node.input(2);
  if (node.op == OpKind::Gemm && c.valid()) {
    const TensorData* cData = constantData(graph, c);
    if (cData == nullptr) {
      return std::nullopt;
    }
    const Shape& cShape = graph.value(c).shape;
    std::int64_t count = elementCount(cShape);
    bool perColumn = count == linear.n && (cShape.size() == 1 || cShape[0] == 1);
    if (count != 1 && !perColumn) {
      return std::nullopt;  // C varies along the rows: not a per-channel bias.
    }
    std::span<const float> cValues = cData->floats();
    for (std::int64_t n = 0; n < linear.n; ++n) {
      linear.bias[n] = beta * cValues[count == 1 ? 0 : n];
    }
  }
  return linear;
}

/// The three nodes replacing the fully connected node.
std::vector<Node> lowerToConv(Graph& graph, const Node& node, Linear linear) {
  ValueId x = node.input(0);
  ValueId y = node.outputs.at(0);
  std::string base = node.name;

  ValueId xShape = addIndexConstant(graph, base + ".nchw_shape", {linear.m, linear.k, 1, 1});
  ValueId x4 = graph.addIntermediate(graph.uniqueValueName(base + ".nchw"));
  Value& x4Value = graph.value(x4);
  x4Value.shape = {linear.m, linear.k, 1, 1};
  x4Value.typed = true;
  x4Value.quant = graph.value(x).quant;  // a reshape: the same quantized values
  ValueId weight = addFloatConstant(graph, base + ".weight", {linear.n, linear.k, 1, 1},
                                    std::move(linear.weight));
  graph.value(weight).quant = linear.weightQuant;
  ValueId bias = addFloatConstant(graph, base + ".bias", {linear.n}, std::move(linear.bias));
  ValueId y4 = graph.addIntermediate(graph.uniqueValueName(base + ".conv"));
  Value& y4Value = graph.value(y4);
  y4Value.shape = {linear.m, linear.n, 1, 1};
  y4Value.typed = true;
  y4Value.quant = graph.value(y).quant;
  ValueId yShape = addIndexConstant(graph, base + ".out_shape", {linear.m, linear.n});

  Node toNchw;
  toNchw.name = graph.uniqueNodeName(base + "/to_nchw");
  toNchw.op = OpKind::Reshape;
  toNchw.inputs = {x, xShape};
  toNchw.outputs = {x4};
  Node conv;
  conv.name = graph.uniqueNodeName(base + "/conv");
  conv.op = OpKind::Conv;
  conv.inputs = {x4, weight, bias};
  conv.outputs = {y4};
  conv.attributes.set("kernel_shape", std::vector<std::int64_t>{1, 1});
  Node to2d;
  to2d.name = graph.uniqueNodeName(base + "/to_2d");
  to2d.op = OpKind::Reshape;
  to2d.inputs = {y4, yShape};
  to2d.outputs = {y};
  return {std::move(toNchw), std::move(conv), std::move(to2d)};
}

}  // namespace

void convertGemmToConv(Graph& graph) {
  std::vector<Node> rewritten;
  rewritten.reserve(graph.nodes().size());
  bool changed = false;
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    std::optional<Linear> linear = asLinear(graph, graph.nodes()[i]);
    if (!linear) {
      rewritten.push_back(graph.nodes()[i]);
      continue;
    }
    Node node = graph.nodes()[i];
    for (Node& lowered : lowerToConv(graph, node, std::move(*linear))) {
      rewritten.push_back(std::move(lowered));
    }
    changed = true;
  }
  if (changed) {
    graph.nodes() = std::move(rewritten);
  }
}

}  // namespace npu::compiler
