// Realize: each NPU node of a segment as its quantized op with the exact integer parameters.
#include "npu/compiler/quant/realize.h"

#include "npu/compiler/passes/fold_channel_shuffle.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "npu/compiler/ir/diagnostics.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/quant/constant_activation.h"
#include "npu/compiler/quant/weight_quantization.h"
#include "npu/golden/fp32_activation.h"
#include "npu/golden/int8_ops.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

namespace scalar = golden::scalar;

std::function<float(float)> epilogueFunction(const FusedActivation& a, bool geluTanh) {
  switch (a.op) {
    case OpKind::Relu:
      return [](float x) { return scalar::relu(x); };
    case OpKind::Clip:
      return [lo = a.min, hi = a.max](float x) { return scalar::clip(x, lo, hi); };
    case OpKind::LeakyRelu:
      return [alpha = a.alpha](float x) { return scalar::leakyRelu(x, alpha); };
    case OpKind::Sigmoid:
      return [](float x) { return scalar::sigmoid(x); };
    case OpKind::Tanh:
      return [](float x) { return scalar::tanh(x); };
    case OpKind::HardSigmoid:
      return
          [alpha = a.alpha, beta = a.beta](float x) { return scalar::hardSigmoid(x, alpha, beta); };
    case OpKind::HardSwish:
      return [](float x) { return scalar::hardSwish(x); };
    case OpKind::Silu:
      return [](float x) { return scalar::silu(x); };
    case OpKind::Mish:
      return [](float x) { return scalar::mish(x); };
    case OpKind::Softplus:
      return [](float x) { return scalar::softplus(x); };
    case OpKind::Gelu:
      if (geluTanh) {
        return [](float x) { return scalar::geluTanh(x); };
      }
      return [](float x) { return scalar::gelu(x); };
    default:
      fail("{} has no LUT form", opName(a.op));
  }
}

std::optional<float> scalarInput(const Graph& graph, const Node& node, std::size_t i) {
  ValueId id = node.input(i);
  if (!id.valid() || !graph.value(id).isConstant()) {
    return std::nullopt;
  }
  return graph.value(id).data->toFloat().at(0);
}

/// Builds the QuantizedGraph of one segment.
class SegmentBuilder {
 public:
  SegmentBuilder(const Graph& graph, const Partition& partition,
                 const CalibrationResult& calibration, const QuantConfig& config,
                 std::vector<std::string>* notes)
      : m_graph(graph),
        m_partition(partition),
        m_calibration(calibration),
        m_config(config),
        m_notes(notes) {
    for (std::size_t i = 0; i < graph.valueCount(); ++i) {
      const Value& v = graph.value(ValueId{static_cast<std::uint32_t>(i)});
      m_weightsGiven = m_weightsGiven || (v.isConstant() && v.quant.has_value());
    }
  }

  NpuSegment build(std::size_t s) {
    const Segment& segment = m_partition.segments[s];
    m_out = NpuSegment{};
    m_out.segment = s;
    m_tensorOf.clear();
    m_requantOf.clear();
    m_reshapedFrom.clear();
    m_constantOf.clear();
    for (ValueId in : segment.inputs) {
      TensorId id = tensorFor(in);
      m_out.graph.inputs.push_back(id);
      m_out.inputValues.push_back(m_graph.value(in).name);
    }
    for (std::size_t n : segment.nodes) {
      const Node& node = m_graph.nodes()[n];
      withNodeContext(m_graph, node, [&] { realizeNode(n, node); });
    }
    for (ValueId v : segment.outputs) {
      TensorId id = tensorFor(v);
      m_out.outputValues.emplace_back(m_graph.value(v).name, id);
      if (std::find(m_out.graph.outputs.begin(), m_out.graph.outputs.end(), id) ==
          m_out.graph.outputs.end()) {
        m_out.graph.outputs.push_back(id);
      }
    }
    return std::move(m_out);
  }

 private:
  golden::QuantParams paramsOf(std::string_view name) const {
    return m_calibration.at(name).params;
  }

  /// A new tensor for `shape` (fp32 NCHW) quantized as `params`.
  TensorId addTensor(const std::string& name, const Shape& shape, golden::QuantParams params) {
    std::optional<Shape> nhwc = nhwcShapeOf(shape);
    if (!nhwc) {
      fail("value '{}' of shape {} has no NHWC form", name, formatShape(shape));
    }
    QTensor t;
    t.name = name;
    t.shape = *nhwc;
    t.scale = params.scale;
    t.zeroPoint = params.zeroPoint;
    m_out.graph.tensors.push_back(t);
    return m_out.graph.tensors.size() - 1;
  }

  TensorId tensorFor(ValueId v) {
    auto it = m_tensorOf.find(v.index);
    if (it != m_tensorOf.end()) {
      return it->second;
    }
    if (auto r = m_reshapedFrom.find(v.index); r != m_reshapedFrom.end()) {
      return reshapeCopy(v, r->second.first, r->second.second);
    }
    const Value& value = m_graph.value(v);
    TensorId id = addTensor(value.name, value.shape, paramsOf(value.name));
    m_tensorOf.emplace(v.index, id);
    return id;
  }

  /// The constant `v` as an int8 tensor quantized with `params` (one tensor per constant and
  /// parameters).
  TensorId constantTensor(ValueId v, golden::QuantParams params) {
    auto key = std::make_tuple(v.index, params.scale, params.zeroPoint);
    if (auto it = m_constantOf.find(key); it != m_constantOf.end()) {
      return it->second;
    }
    const std::string& name = m_graph.value(v).name;
    m_out.graph.tensors.push_back(
        quantizeConstantActivation(m_graph, v, params, uniqueTensorName(name)));
    const TensorId id = m_out.graph.tensors.size() - 1;
    m_constantOf.emplace(key, id);
    return id;
  }

  /// The output of a reshape that keeps the NHWC bytes but not the NHWC shape, for a reader
  /// other than a row concat (which reads the source's bytes as they are): a byte copy of
  /// `source` into a tensor of `v`'s shape (a QConcat of one input along rows).
  TensorId reshapeCopy(ValueId v, TensorId source, std::size_t n) {
    const Value& value = m_graph.value(v);
    QTensor t = m_out.graph.tensors[source];
    t.name = uniqueTensorName(value.name);
    t.shape = nhwcShapeOf(value.shape).value();
    t.data.reset();
    m_out.graph.tensors.push_back(std::move(t));
    const TensorId id = m_out.graph.tensors.size() - 1;
    m_tensorOf.emplace(v.index, id);
    QOpOrigin origin;
    origin.node = n;
    add(QConcat{m_graph.nodes()[n].name + "#copy", {source}, id, 1}, origin);
    return id;
  }

  golden::QuantParams tensorParams(TensorId id) const {
    const QTensor& t = m_out.graph.tensors[id];
    return golden::QuantParams{static_cast<float>(t.scale), t.zeroPoint};
  }

  void add(QOp op, QOpOrigin origin) {
    m_out.graph.ops.push_back(std::move(op));
    m_out.origins.push_back(origin);
  }

  /// A linear Resize along rows or columns (npuSupport admitted one resized axis): the tap table
  /// of that axis and the requant from the input's scale in 1/64 to the output's.
  void resizeLinear(const Node& node, const QOpOrigin& origin) {
    const Shape& in = m_graph.value(node.input(0)).shape;
    const Shape& out = m_graph.value(node.outputs.at(0)).shape;
    std::vector<float> scales;
    std::vector<std::int64_t> sizes;
    if (const Value* given = node.input(2).valid() ? &m_graph.value(node.input(2)) : nullptr;
        given != nullptr && given->data && given->data->size() > 0) {
      scales = given->data->toFloat();
    } else {
      sizes = m_graph.value(node.input(3)).data.value().toInt64();
    }
    const golden::ResizeParams resize = resizeParams(node, in, scales, sizes);
    const std::size_t axis = out[2] != in[2] || (!scales.empty() && scales[2] != 1.0F) ? 2 : 3;
    const float scale = !scales.empty()
                            ? scales[axis]
                            : static_cast<float>(out[axis]) / static_cast<float>(in[axis]);
    QResizeLinear op;
    op.name = node.name;
    op.input = tensorFor(node.input(0));
    op.output = tensorFor(node.outputs.at(0));
    op.params.axis = axis == 2 ? 1 : 2;  // NHWC
    op.params.taps =
        golden::linearResizeTaps(in[axis], out[axis], scale, resize.coordinateTransform);
    const QTensor& source = m_out.graph.tensors[op.input];
    const QTensor& target = m_out.graph.tensors[op.output];
    op.params.inputZeroPoint = source.zeroPoint;
    op.params.multiplier = golden::quantizeMultiplier(
        source.scale / (static_cast<double>(golden::kLinearWeightOne) * target.scale));
    op.params.output.zeroPoint = target.zeroPoint;
    op.params.output.rounding = m_config.rounding;
    add(std::move(op), origin);
  }

  /// A softmax over channels: its exp table from the input's scale; the NORM writes scale 1/256
  /// and zero point -128, and any other output quantization (given parameters) is a requant
  /// after it.
  void softmax(const Node& node, QOpOrigin origin) {
    QNorm op;
    op.name = node.name;
    op.kind = QNorm::Kind::Softmax;
    op.input = tensorFor(node.input(0));
    op.softmax.expTable = golden::softmaxExpTable(m_out.graph.tensors[op.input].scale);
    const TensorId target = tensorFor(node.outputs.at(0));
    const QTensor& t = m_out.graph.tensors[target];
    const bool fixed =
        static_cast<float>(t.scale) == static_cast<float>(golden::kSoftmaxOutputScale) &&
        t.zeroPoint == golden::kSoftmaxOutputZeroPoint;
    op.output = target;
    if (!fixed) {
      QTensor written = t;
      written.name = uniqueTensorName(t.name + "#softmax");
      written.scale = golden::kSoftmaxOutputScale;
      written.zeroPoint = golden::kSoftmaxOutputZeroPoint;
      m_out.graph.tensors.push_back(std::move(written));
      op.output = m_out.graph.tensors.size() - 1;
    }
    const TensorId written = op.output;
    add(std::move(op), origin);
    finishMoved(written, target, node, origin);
  }

  /// A LayerNorm or RMSNorm over channels (no affine: the graph keeps scale and bias as their
  /// own ops): the epsilon term from the input's scale, each channel's output affine gamma 1,
  /// beta 0 (docs/numerics.md: RMSNorm takes LayerNorm's parameters).
  void layerNorm(const Node& node, QNorm::Kind kind, QOpOrigin origin) {
    QNorm op;
    op.name = node.name;
    op.kind = kind;
    op.input = tensorFor(node.input(0));
    op.output = tensorFor(node.outputs.at(0));
    const QTensor& in = m_out.graph.tensors[op.input];
    const QTensor& out = m_out.graph.tensors[op.output];
    const std::int64_t channels = in.shape.back();
    golden::LayerNormInt8Params& p = op.layerNorm;
    p.inputZeroPoint = in.zeroPoint;
    p.epsilonTerm = golden::layerNormEpsilonTerm(
        channels, node.attributes.getFloat("epsilon", 1e-5F), in.scale);
    p.positions.assign(static_cast<std::size_t>(channels),
                       golden::layerNormPosition(1.0, 0.0, channels, out.scale));
    p.outputZeroPoint = out.zeroPoint;
    add(std::move(op), origin);
  }

  /// A HeadMatMul: the CONVs' per-tensor requant alpha * s_a * s_b / s_y, the views as they
  /// stand (the tensors' NHWC bytes are the IR twins' NHWC bytes). b must be symmetric:
  /// calibration makes it so, and given parameters that are not get a symmetric copy of b.
  void matMul(const Node& node, QOpOrigin origin) {
    QMatMul op;
    op.name = node.name;
    op.a = tensorFor(node.input(0));
    op.b = tensorFor(node.input(1));
    op.output = tensorFor(node.outputs.at(0));
    const HeadMatMulGeometry geometry = headMatMulGeometry(node.attributes);
    if (const QTensor& given = m_out.graph.tensors[op.b]; given.zeroPoint != 0) {
      // Given parameters (a calibration table, a QDQ model) with a zero point: the CONV's
      // weights have none, so b is requantized to a symmetric copy covering its range.
      const double lo = (-128.0 - given.zeroPoint) * given.scale;
      const double hi = (127.0 - given.zeroPoint) * given.scale;
      const golden::QuantParams symmetric{
          static_cast<float>(std::max(std::fabs(lo), std::fabs(hi)) / 127.0), 0};
      op.b = requantized(op.b, symmetric, node, origin, "");
    }
    const QTensor& a = m_out.graph.tensors[op.a];
    const QTensor& b = m_out.graph.tensors[op.b];
    const QTensor& y = m_out.graph.tensors[op.output];
    golden::MatMulInt8Params& p = op.params;
    p.zeroPointA = a.zeroPoint;
    p.zeroPointB = b.zeroPoint;
    p.layoutB = geometry.bRowsAreN ? golden::MatMulLayout::NK : golden::MatMulLayout::KN;
    p.multiplier = golden::quantizeMultiplier(
        static_cast<double>(node.attributes.getFloat("alpha", 1.0F)) * a.scale * b.scale / y.scale);
    p.output.zeroPoint = y.zeroPoint;
    p.output.rounding = m_config.rounding;
    op.geometry = geometry;
    add(std::move(op), origin);
  }

  /// Clip bounds for a Relu/Clip epilogue (or none) on output quantization `out`.
  static void setClip(golden::OutputStage& stage, const FusedActivation& act,
                      golden::QuantParams out) {
    golden::ClipRange range;
    if (act.op == OpKind::Relu) {
      range = golden::activationClipRange(golden::FusedActivation::Relu, out);
    } else if (act.op == OpKind::Clip) {
      range = golden::activationClipRange(golden::FusedActivation::Clip, out, act.min, act.max);
    } else if (act.op != OpKind::Identity) {
      fail("fused activation {} is not a clip", opName(act.op));
    }
    stage.clipLo = range.lo;
    stage.clipHi = range.hi;
  }

  void realizeNode(std::size_t n, const Node& node) {
    NpuOpKind kind = m_partition.npuKind[n].value();
    QOpOrigin origin;
    origin.node = n;
    switch (kind) {
      case NpuOpKind::Alias:
        return alias(n, node, origin);
      case NpuOpKind::Conv:
        return conv(node, origin);
      case NpuOpKind::ChannelAffine:
        return channelAffine(node, origin);
      case NpuOpKind::Add:
      case NpuOpKind::Sub:
      case NpuOpKind::Mul:
        return elementwise(n, node, kind, origin);
      case NpuOpKind::MaxPool:
      case NpuOpKind::AvgPool:
      case NpuOpKind::GlobalAvgPool:
        return pool(node, kind, origin);
      case NpuOpKind::Concat:
        return concat(n, node, origin);
      case NpuOpKind::Slice:
        return slice(node, origin);
      case NpuOpKind::ChannelShuffle:
        return shuffle(node, origin);
      case NpuOpKind::Upsample:
        return upsample(node, origin);
      case NpuOpKind::ResizeLinear:
        return resizeLinear(node, origin);
      case NpuOpKind::Softmax:
        return softmax(node, origin);
      case NpuOpKind::LayerNorm:
        return layerNorm(node, QNorm::Kind::LayerNorm, origin);
      case NpuOpKind::RmsNorm:
        return layerNorm(node, QNorm::Kind::RmsNorm, origin);
      case NpuOpKind::MatMul:
        return matMul(node, origin);
      case NpuOpKind::Lut:
        return lut(node, origin);
    }
    fail(ErrorKind::Internal, "realize: node '{}' has NPU form {}, which has no realization",
         node.name, static_cast<int>(kind));
  }

  /// A layout no-op: the output is the input's bytes (requantized where given parameters differ).
  void alias(std::size_t n, const Node& node, const QOpOrigin& origin) {
    ValueId outValue = node.outputs.at(0);
    // An alias of an alias reads the bytes where they are, never a copy of them.
    const auto from = m_reshapedFrom.find(node.input(0).index);
    TensorId in = from != m_reshapedFrom.end() ? from->second.first : tensorFor(node.input(0));
    const QTensor& t = m_out.graph.tensors[in];
    golden::QuantParams out = paramsOf(m_graph.value(outValue).name);
    if (nhwcShapeOf(m_graph.value(outValue).shape).value() != t.shape) {
      // The same bytes under another NHWC shape ([1, H, W, C] as [1, H x W, 1, C]): a row
      // concat reads them as they are; any other reader gets a copy (reshapeCopy), which codegen
      // makes in place where it can (the source stored into the copy: planReshapesInPlace).
      if (out.scale != static_cast<float>(t.scale) || out.zeroPoint != t.zeroPoint) {
        in = requantized(in, out, node, origin, "");
      }
      m_reshapedFrom.emplace(outValue.index, std::make_pair(in, n));
      return;
    }
    if (out.scale != static_cast<float>(t.scale) || out.zeroPoint != t.zeroPoint) {
      // Given parameters that differ across a layout no-op: requantize into the output.
      QOpOrigin requantOrigin;
      requantOrigin.node = n;
      m_tensorOf.emplace(outValue.index,
                         requantized(in, out, node, requantOrigin, m_graph.value(outValue).name));
      return;
    }
    m_tensorOf.emplace(outValue.index, in);
  }

  /// A concat along channels or rows; constant inputs take the output's parameters.
  void concat(std::size_t n, const Node& node, const QOpOrigin& origin) {
    ValueId outValue = node.outputs.at(0);
    QConcat op;
    op.name = node.name;
    std::int64_t axis = node.attributes.getInt("axis", 0);
    axis = axis < 0 ? axis + static_cast<std::int64_t>(m_graph.value(outValue).shape.size()) : axis;
    op.axis = axis == 2 ? 1 : 3;  // NCHW rows or channels in NHWC
    op.output = tensorFor(outValue);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueId in = node.input(i);
      if (isConstantActivation(m_graph, m_partition, n, i)) {
        // Quantized with the output's parameters, which every input shares.
        op.inputs.push_back(constantTensor(in, tensorParams(op.output)));
        continue;
      }
      auto r = m_reshapedFrom.find(in.index);
      const TensorId source =
          op.axis == 1 && r != m_reshapedFrom.end() ? r->second.first : tensorFor(in);
      op.inputs.push_back(shared(source, op.output, node, origin));
    }
    return add(std::move(op), origin);
  }

  /// A byte move (slice, shuffle, upsample): `op`, its own fields set, reads the node's input
  /// and writes its output, or a tensor the output is then requantized from (movedOutput).
  template <typename MovingOp>
  void addMoved(const Node& node, const QOpOrigin& origin, MovingOp op) {
    op.name = node.name;
    op.input = tensorFor(node.input(0));
    const TensorId target = tensorFor(node.outputs.at(0));
    op.output = movedOutput(op.input, target);
    const TensorId written = op.output;
    add(std::move(op), origin);
    finishMoved(written, target, node, origin);
  }

  /// A slice of channels, rows and columns at steps.
  void slice(const Node& node, const QOpOrigin& origin) {
    const SliceWindow window = sliceWindowOf(m_graph, node);
    QSlice op;
    op.channelBegin = window.channelBegin;
    op.rowBegin = window.rowBegin;
    op.rowStep = window.rowStep;
    op.colBegin = window.colBegin;
    op.colStep = window.colStep;
    addMoved(node, origin, std::move(op));
  }

  /// A channel shuffle (a Gather of the channels in shuffle order).
  void shuffle(const Node& node, const QOpOrigin& origin) {
    const Value& indices = m_graph.value(node.input(1));
    QShuffle op;
    op.groups = shuffleGroups(indices.data->toInt64(), m_graph.value(node.input(0)).shape[1]);
    addMoved(node, origin, std::move(op));
  }

  /// A nearest upsample by integer factors.
  void upsample(const Node& node, const QOpOrigin& origin) {
    const Shape& in = m_graph.value(node.input(0)).shape;
    const Shape& out = m_graph.value(node.outputs.at(0)).shape;
    QUpsample op;
    op.factorH = out[2] / in[2];
    op.factorW = out[3] / in[3];
    addMoved(node, origin, std::move(op));
  }

  /// A standalone activation as a 256-entry table.
  void lut(const Node& node, QOpOrigin origin) {
    ValueId outValue = node.outputs.at(0);
    QLut op;
    op.name = node.name;
    op.input = tensorFor(node.input(0));
    op.output = tensorFor(outValue);
    op.lut = golden::buildLut(activationFunction(m_graph, node), tensorParams(op.input),
                              tensorParams(op.output));
    origin.lut = true;
    return add(std::move(op), origin);
  }

  void note(std::string text) const {
    if (m_notes != nullptr) {
      m_notes->push_back(std::move(text));
    }
  }

  /// `in` when it shares `out`'s scale and zero point (calibration aligns them); otherwise (given
  /// parameters that differ, e.g. a QDQ model's) `in` requantized to `out`'s parameters, since
  /// the NPU moves these bytes without arithmetic. For the inputs of a concat.
  TensorId shared(TensorId in, TensorId out, const Node& node, const QOpOrigin& origin) {
    const QTensor& a = m_out.graph.tensors[in];
    const QTensor& b = m_out.graph.tensors[out];
    if (a.scale == b.scale && a.zeroPoint == b.zeroPoint) {
      return in;
    }
    return requantized(in, tensorParams(out), node, origin, "");
  }

  /// The tensor a single-input byte-moving op (pool, slice, shuffle, upsample) writes: `target`
  /// when it shares `in`'s parameters, else a new tensor of `target`'s shape at `in`'s parameters
  /// that finishMoved then requantizes into `target` (after the op, so an average pool averages
  /// before anything clips).
  TensorId movedOutput(TensorId in, TensorId target) {
    const QTensor& a = m_out.graph.tensors[in];
    const QTensor& b = m_out.graph.tensors[target];
    if (a.scale == b.scale && a.zeroPoint == b.zeroPoint) {
      return target;
    }
    QTensor t = b;
    t.name = uniqueTensorName(b.name + "#pre_requant");
    t.scale = a.scale;
    t.zeroPoint = a.zeroPoint;
    m_out.graph.tensors.push_back(std::move(t));
    return m_out.graph.tensors.size() - 1;
  }

  void finishMoved(TensorId written, TensorId target, const Node& node, const QOpOrigin& origin) {
    if (written != target) {
      emitRequant(written, target, node, origin, "after");
    }
  }

  std::string uniqueTensorName(const std::string& base) const {
    std::string name = base;
    for (int k = 1; std::any_of(m_out.graph.tensors.begin(), m_out.graph.tensors.end(),
                                [&](const QTensor& e) { return e.name == name; });
         ++k) {
      name = fmt::format("{}{}", base, k);
    }
    return name;
  }

  /// A new tensor quantized as `target` holding `in` requantized (emitRequant). Reuses an earlier
  /// one for the same input and parameters. `name` names the new tensor ("<input>#requant" when
  /// empty).
  TensorId requantized(TensorId in, golden::QuantParams target, const Node& node,
                       const QOpOrigin& origin, const std::string& name) {
    auto key = std::make_tuple(in, target.scale, target.zeroPoint);
    if (auto it = m_requantOf.find(key); it != m_requantOf.end() && name.empty()) {
      return it->second;
    }
    QTensor t = m_out.graph.tensors[in];
    t.name = name.empty() ? uniqueTensorName(t.name + "#requant") : name;
    t.scale = target.scale;
    t.zeroPoint = target.zeroPoint;
    m_out.graph.tensors.push_back(std::move(t));
    TensorId id = m_out.graph.tensors.size() - 1;
    emitRequant(in, id, node, origin, "before");
    m_requantOf[key] = id;
    return id;
  }

  /// The requantizing step from `in` to `out` (same shape): a depthwise 1x1 conv with unit
  /// weights and zero bias, y = requant(x - zp_in, s_in / s_out) + zp_out. `where` says whether
  /// it runs before or after `node`, for the note.
  void emitRequant(TensorId in, TensorId out, const Node& node, const QOpOrigin& origin,
                   std::string_view where) {
    const QTensor source = m_out.graph.tensors[in];
    const QTensor target = m_out.graph.tensors[out];
    const std::int64_t channels = source.shape.back();
    QConv op;
    op.name = where == "before" ? fmt::format("{}#requant_{}", node.name, source.name)
                                : node.name + "#requant";
    op.input = in;
    op.output = out;
    op.weights.shape = {channels, 1, 1, 1};
    op.weights.data.assign(static_cast<std::size_t>(channels), 1);
    op.params.groups = channels;
    op.params.inputZeroPoint = source.zeroPoint;
    op.params.bias.assign(static_cast<std::size_t>(channels), 0);
    std::vector<float> unit(static_cast<std::size_t>(channels), 1.0F);
    op.params.multipliers = golden::convMultipliers(static_cast<float>(source.scale), unit,
                                                    static_cast<float>(target.scale));
    op.params.output.zeroPoint = target.zeroPoint;
    op.params.output.rounding = m_config.rounding;
    QOpOrigin requantOrigin = origin;
    requantOrigin.weightSqnrDb = std::numeric_limits<double>::infinity();
    requantOrigin.weightChannelRangeRatio = 1.0;
    requantOrigin.lut = false;
    requantOrigin.requant = true;
    requantOrigin.weightScales = unit;
    note(fmt::format(
        "{}: node '{}' ({}): {} has scale {} zero point {} but {} scale {} zero point "
        "{}; the NPU moves these bytes unchanged, so the requantizing step '{}' (a "
        "1x1 depthwise conv with unit weights) was inserted {} it",
        m_graph.source(), node.name, opName(node.op),
        where == "before" ? fmt::format("its input '{}'", source.name) : std::string("its input"),
        static_cast<float>(source.scale), source.zeroPoint,
        where == "before" ? "its output" : fmt::format("its output '{}'", target.name),
        static_cast<float>(target.scale), target.zeroPoint, op.name, where));
    add(std::move(op), requantOrigin);
  }

  /// Conv weights, bias, multipliers and output stage from fp32 OIHW weights.
  void emitConv(const Node& node, ValueId x, std::span<const float> weights, const Shape& wShape,
                std::span<const float> bias, const golden::Conv2dParams& geometry,
                const FusedActivation& act, QOpOrigin origin, const QuantParams* given = nullptr) {
    QConv op;
    op.name = node.name;
    op.input = tensorFor(x);
    ValueId outValue = node.outputs.at(0);
    op.output = tensorFor(outValue);
    golden::QuantParams in = tensorParams(op.input);
    golden::QuantParams out = tensorParams(op.output);
    WeightSettings settings = weightSettingsFor(m_config, m_graph, node);
    std::optional<QuantizedConvWeights> givenWeights;
    if (given != nullptr) {
      std::string why;
      bool folded = false;
      givenWeights = quantizeConvWeightsGiven(weights, wShape, bias, in.scale, *given, why, folded);
      if (!givenWeights) {
        note(
            fmt::format("{}: node '{}' ({}): the given weight quantization cannot be honoured: "
                        "{}; the weights were re-quantized symmetric ({})",
                        m_graph.source(), node.name, opName(node.op), why,
                        settings.perChannel ? "per channel" : "per tensor"));
      } else if (folded) {
        note(
            fmt::format("{}: node '{}' ({}): the weight zero points are not 0; q - zp fits int8, "
                        "so they were folded into the int8 weights (exact)",
                        m_graph.source(), node.name, opName(node.op)));
      }
    } else if (m_weightsGiven && node.op == OpKind::Conv) {
      note(
          fmt::format("{}: node '{}' (Conv): no given weight quantization reaches it (a "
                      "front-end pass rewrote its weights, e.g. folded a BatchNormalization or "
                      "a per-channel Mul); the weights were quantized by the config",
                      m_graph.source(), node.name));
    }
    const bool honoured = givenWeights.has_value();
    QuantizedConvWeights q = givenWeights
                                 ? std::move(*givenWeights)
                                 : quantizeConvWeights(weights, wShape, bias, in.scale, settings);
    op.weights = std::move(q.weights);
    op.params.strides = geometry.strides;
    op.params.dilations = geometry.dilations;
    op.params.pads = geometry.pads;
    op.params.groups = geometry.group;
    op.params.inputZeroPoint = in.zeroPoint;
    op.params.bias = std::move(q.bias);
    op.params.output.rounding = m_config.rounding;
    if (act.lut) {
      golden::QuantParams pre = paramsOf(preActivationName(m_graph.value(outValue).name));
      op.params.multipliers = golden::convMultipliers(in.scale, q.scales, pre.scale);
      op.params.output.zeroPoint = pre.zeroPoint;
      op.params.output.lut = golden::buildLut(epilogueFunction(act, false), pre, out);
      origin.lut = true;
    } else {
      op.params.multipliers = golden::convMultipliers(in.scale, q.scales, out.scale);
      op.params.output.zeroPoint = out.zeroPoint;
      setClip(op.params.output, act, out);
    }
    origin.weightScales = q.scales;
    origin.weightSqnrDb = q.sqnrDb;
    origin.weightChannelRangeRatio = q.channelRangeRatio;
    origin.perChannel = honoured ? std::adjacent_find(q.scales.begin(), q.scales.end(),
                                                      std::not_equal_to<>()) != q.scales.end()
                                 : settings.perChannel;
    add(std::move(op), origin);
  }

  void conv(const Node& node, QOpOrigin origin) {
    const Value& w = m_graph.value(node.input(1));
    std::span<const float> bias;
    if (node.input(2).valid()) {
      bias = m_graph.value(node.input(2)).data->floats();
    }
    golden::Conv2dParams geometry = convParams(node, m_graph.value(node.input(0)).shape, w.shape);
    emitConv(node, node.input(0), w.data->floats(), w.shape, bias, geometry, fusedActivation(node),
             origin, w.quant ? &*w.quant : nullptr);
  }

  void channelAffine(const Node& node, QOpOrigin origin) {
    bool constFirst =
        node.op != OpKind::BatchNormalization && m_graph.value(node.input(0)).isConstant();
    ValueId x = node.input(constFirst ? 1 : 0);
    std::int64_t channels = m_graph.value(x).shape[1];
    ChannelAffine affine = channelAffineOf(m_graph, node, channels);
    golden::Conv2dParams geometry;
    geometry.group = channels;
    // Add and BatchNormalization carry the clip fuse-activations gave them.
    FusedActivation act = fusedActivation(node);
    emitConv(node, x, affine.scale, Shape{channels, 1, 1, 1}, affine.bias, geometry, act, origin);
  }

  void elementwise(std::size_t n, const Node& node, NpuOpKind kind, QOpOrigin origin) {
    // A constant operand (of the other's whole shape) with its own calibrated parameters.
    auto operand = [&](std::size_t i) {
      return isConstantActivation(m_graph, m_partition, n, i)
                 ? constantTensor(node.input(i), paramsOf(m_graph.value(node.input(i)).name))
                 : tensorFor(node.input(i));
    };
    TensorId a = operand(0);
    TensorId b = operand(1);
    TensorId out = tensorFor(node.outputs.at(0));
    golden::QuantParams qa = tensorParams(a);
    golden::QuantParams qb = tensorParams(b);
    golden::QuantParams qo = tensorParams(out);
    if (kind == NpuOpKind::Add) {
      QAdd op{node.name, a, b, out, golden::makeAddParams(qa, qb, qo)};
      op.params.output.rounding = m_config.rounding;
      setClip(op.params.output, fusedActivation(node), qo);
      add(std::move(op), origin);
    } else if (kind == NpuOpKind::Sub) {
      // The add's multipliers: a - b rescales both inputs as a + b does (docs/numerics.md).
      QSub op{node.name, a, b, out, golden::makeAddParams(qa, qb, qo)};
      op.params.output.rounding = m_config.rounding;
      setClip(op.params.output, fusedActivation(node), qo);
      add(std::move(op), origin);
    } else {
      QMul op{node.name, a, b, out, golden::makeMulParams(qa, qb, qo)};
      op.params.output.rounding = m_config.rounding;
      add(std::move(op), origin);
    }
  }

  void pool(const Node& node, NpuOpKind kind, QOpOrigin origin) {
    TensorId in = tensorFor(node.input(0));
    TensorId target = tensorFor(node.outputs.at(0));
    if ((kind == NpuOpKind::AvgPool || kind == NpuOpKind::GlobalAvgPool) &&
        averageAsConv(node, kind, in, target, origin)) {
      return;
    }
    TensorId out = movedOutput(in, target);
    if (kind == NpuOpKind::GlobalAvgPool) {
      add(QGlobalAvgPool{node.name, in, out}, origin);
      return finishMoved(out, target, node, origin);
    }
    const Shape& x = m_graph.value(node.input(0)).shape;
    golden::PoolInt8Params p;
    if (node.op == OpKind::GlobalMaxPool) {
      p.kernel = {x[2], x[3]};
    } else {
      golden::Pool2dParams fp = poolParams(node, x);
      std::array<std::int64_t, 2> extra = ceilModeExtraPadding(fp, x);
      p.kernel = fp.kernel;
      p.strides = fp.strides;
      p.pads = {fp.pads[0], fp.pads[1], fp.pads[2] + extra[0], fp.pads[3] + extra[1]};
    }
    if (kind == NpuOpKind::MaxPool) {
      add(QMaxPool{node.name, in, out, p}, origin);
    } else {
      add(QAvgPool{node.name, in, out, p}, origin);
    }
    finishMoved(out, target, node, origin);
  }

  /// An average pool whose input and output parameters differ (given ones) as a depthwise conv
  /// with unit weights at scale 1 / (kH * kW): acc = sum (x - zp_in), padding reading zp_in as
  /// the pool's count_include_pad does, then one requant to the output's parameters, as the QDQ
  /// model rounds it. Returns false (nothing emitted) when they share parameters or the window is
  /// beyond the conv's kernel limit (a requantizing step after the pool then does it).
  bool averageAsConv(const Node& node, NpuOpKind kind, TensorId in, TensorId out,
                     const QOpOrigin& origin) {
    const QTensor source = m_out.graph.tensors[in];
    const QTensor target = m_out.graph.tensors[out];
    if (source.scale == target.scale && source.zeroPoint == target.zeroPoint) {
      return false;
    }
    const Shape& x = m_graph.value(node.input(0)).shape;
    golden::Conv2dInt8Params params;
    std::array<std::int64_t, 2> kernel{x[2], x[3]};
    if (kind == NpuOpKind::AvgPool) {
      golden::Pool2dParams fp = poolParams(node, x);
      std::array<std::int64_t, 2> extra = ceilModeExtraPadding(fp, x);
      kernel = fp.kernel;
      params.strides = fp.strides;
      params.pads = {fp.pads[0], fp.pads[1], fp.pads[2] + extra[0], fp.pads[3] + extra[1]};
    }
    constexpr std::int64_t kMaxKernel = 15;  // the CONV instruction's kh/kw fields
    if (kernel[0] > kMaxKernel || kernel[1] > kMaxKernel) {
      return false;
    }
    const std::int64_t channels = source.shape.back();
    QConv op;
    op.name = node.name;
    op.input = in;
    op.output = out;
    op.weights.shape = {channels, kernel[0], kernel[1], 1};
    op.weights.data.assign(static_cast<std::size_t>(channels * kernel[0] * kernel[1]), 1);
    params.groups = channels;
    params.inputZeroPoint = source.zeroPoint;
    params.bias.assign(static_cast<std::size_t>(channels), 0);
    std::vector<float> weightScale(
        static_cast<std::size_t>(channels),
        static_cast<float>(1.0 / static_cast<double>(kernel[0] * kernel[1])));
    params.multipliers = golden::convMultipliers(static_cast<float>(source.scale), weightScale,
                                                 static_cast<float>(target.scale));
    params.output.zeroPoint = target.zeroPoint;
    params.output.rounding = m_config.rounding;
    op.params = std::move(params);
    QOpOrigin convOrigin = origin;
    convOrigin.weightSqnrDb = std::numeric_limits<double>::infinity();
    convOrigin.weightChannelRangeRatio = 1.0;
    convOrigin.weightScales = weightScale;
    note(
        fmt::format("{}: node '{}' ({}): its input has scale {} zero point {} but its output '{}' "
                    "scale {} zero point {}; it runs as a {}x{} depthwise conv with unit weights "
                    "whose requant goes straight to the output's parameters (one rounding, as "
                    "the QDQ model)",
                    m_graph.source(), node.name, opName(node.op), static_cast<float>(source.scale),
                    source.zeroPoint, target.name, static_cast<float>(target.scale),
                    target.zeroPoint, kernel[0], kernel[1]));
    add(std::move(op), convOrigin);
    return true;
  }

  const Graph& m_graph;
  const Partition& m_partition;
  const CalibrationResult& m_calibration;
  const QuantConfig& m_config;
  std::vector<std::string>* m_notes;
  /// Some weight of the graph came with given quantization (a QDQ model).
  bool m_weightsGiven = false;
  NpuSegment m_out;
  std::unordered_map<std::uint32_t, TensorId> m_tensorOf;
  /// Outputs of reshapes that keep the NHWC bytes under another NHWC shape: the tensor holding
  /// the bytes and the reshape's node.
  std::unordered_map<std::uint32_t, std::pair<TensorId, std::size_t>> m_reshapedFrom;
  /// Constant activations by value and parameters.
  std::map<std::tuple<std::uint32_t, float, std::int32_t>, TensorId> m_constantOf;
  std::map<std::tuple<TensorId, float, std::int32_t>, TensorId> m_requantOf;
};

}  // namespace

std::function<float(float)> activationFunction(const Graph& graph, const Node& node) {
  if (node.op == OpKind::Conv || node.op == OpKind::Add) {
    return epilogueFunction(fusedActivation(node), false);
  }
  FusedActivation a;
  a.op = node.op;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  switch (node.op) {
    case OpKind::Clip:
      a.min = scalarInput(graph, node, 1).value_or(-kInf);
      a.max = scalarInput(graph, node, 2).value_or(kInf);
      break;
    case OpKind::LeakyRelu:
      a.alpha = node.attributes.getFloat("alpha", 0.01F);
      break;
    case OpKind::HardSigmoid:
      a.alpha = node.attributes.getFloat("alpha", 0.2F);
      a.beta = node.attributes.getFloat("beta", 0.5F);
      break;
    default:
      break;
  }
  return epilogueFunction(a, node.attributes.getString("approximate", "none") == "tanh");
}

std::vector<NpuSegment> realizeSegments(const Graph& graph, const Partition& partition,
                                        const CalibrationResult& calibration,
                                        const QuantConfig& config,
                                        std::vector<std::string>* notes) {
  std::vector<NpuSegment> segments;
  SegmentBuilder builder(graph, partition, calibration, config, notes);
  for (std::size_t s = 0; s < partition.segments.size(); ++s) {
    if (partition.segments[s].device == Device::Npu) {
      segments.push_back(builder.build(s));
    }
  }
  return segments;
}

}  // namespace npu::compiler
