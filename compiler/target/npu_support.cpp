// The dispatcher's per-node rules: which nodes the NPU runs, in which quantized form.
#include "npu/compiler/target/npu_support.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "npu/compiler/ir/op_kind.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/passes/fold_channel_shuffle.h"
#include "npu/compiler/target/im2col_candidate.h"
#include "npu/golden/fp32_pool.h"
#include "npu/golden/fp32_resize.h"
#include "npu/isa/limits.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

namespace limits = isa::limits;

NpuSupport host(std::string reason) {
  return NpuSupport{std::nullopt, std::move(reason)};
}

/// Host placement for a node whose attributes the shared parameter helpers reject (bad input) or
/// the NPU cannot take (unsupported); any other kind of error is not a placement question and is
/// rethrown. Called only from a catch block.
NpuSupport hostFor(const Error& error) {
  if (error.kind() != ErrorKind::BadInput && error.kind() != ErrorKind::Unsupported) {
    throw;  // NOLINT(misc-throw-by-value-catch-by-reference): rethrows the caught error as is
  }
  return host(error.what());
}

NpuSupport npu(NpuOpKind kind) {
  return NpuSupport{kind, {}};
}

bool isFloatActivation(const Graph& graph, ValueId id) {
  if (!id.valid()) {
    return false;
  }
  const Value& v = graph.value(id);
  return !v.isConstant() && v.dtype == DType::Float32 && v.typed;
}

/// An activation the NPU's compute ops take: f32 [1, C, H, W].
bool isNpuActivation(const Graph& graph, ValueId id) {
  return isFloatActivation(graph, id) && graph.value(id).shape.size() == 4 &&
         graph.value(id).shape[0] == 1;
}

const TensorData* constantOf(const Graph& graph, ValueId id) {
  if (!id.valid() || !graph.value(id).isConstant()) {
    return nullptr;
  }
  return &*graph.value(id).data;
}

/// Checks the inputs after the first are constants and the first input and the output are
/// NPU activations; returns the reason when not.
std::optional<std::string> checkActivationInOut(const Graph& graph, const Node& node) {
  if (!isNpuActivation(graph, node.input(0))) {
    return fmt::format("input '{}' is not an f32 [1, C, H, W] activation",
                       node.input(0).valid() ? graph.value(node.input(0)).name : "");
  }
  if (!isNpuActivation(graph, node.outputs.at(0))) {
    return fmt::format("output '{}' is not an f32 [1, C, H, W] activation",
                       graph.value(node.outputs.at(0)).name);
  }
  return std::nullopt;
}

/// A conv that codegen turns into a 1x1 conv over im2col columns the host lays out
/// (codegen/input_im2col.h): the only reader of a graph input with few channels.
bool readsOwnGraphInputAsIm2col(const Graph& graph, const Node& node,
                                const golden::Conv2dParams& p) {
  const ValueId x = node.input(0);
  if (!graph.isInput(x) || graph.isOutput(x)) {
    return false;
  }
  std::size_t readers = 0;
  for (const Node& other : graph.nodes()) {
    readers += static_cast<std::size_t>(std::count(other.inputs.begin(), other.inputs.end(), x));
  }
  const Shape& w = graph.value(node.input(1)).shape;  // [M, C, kH, kW]
  return readers == 1 && w.size() == 4 &&
         im2colCandidate(w[1], w[2], w[3], p.strides, p.dilations, p.pads, p.group);
}

NpuSupport convSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  const TensorData* w = constantOf(graph, node.input(1));
  if (w == nullptr || w->dtype() != DType::Float32) {
    return host("the weights are not a constant");
  }
  if (node.input(2).valid() && constantOf(graph, node.input(2)) == nullptr) {
    return host("the bias is not a constant");
  }
  golden::Conv2dParams p;
  try {
    p = convParams(node, graph.value(node.input(0)).shape, graph.value(node.input(1)).shape);
  } catch (const Error& e) {
    return hostFor(e);
  }
  // Any kernel and dilation: codegen splits a kernel past CONV's fields into parts that
  // accumulate, and a dilation past them into phases of dilation 1.
  if (!limits::convWindowFits(1, 1, p.strides[0], p.strides[1], 1, 1) &&
      !readsOwnGraphInputAsIm2col(graph, node, p)) {
    return host(fmt::format("stride {}x{} above the NPU's limit of {}", p.strides[0], p.strides[1],
                            limits::kConvStrideH));
  }
  // Any padding: codegen fills what LOAD's padding fields cannot express from a run of pad bytes.
  FusedActivation act = fusedActivation(node);
  bool clipLike = act.op == OpKind::Identity || act.op == OpKind::Relu || act.op == OpKind::Clip;
  if (!clipLike && !act.lut) {
    return host(fmt::format("fused activation {} has no NPU form", opName(act.op)));
  }
  return npu(NpuOpKind::Conv);
}

/// True when `shape` broadcasts against [1, C, H, W] per channel or as a scalar.
bool perChannelBroadcast(const Shape& shape, std::int64_t channels) {
  std::int64_t count = elementCount(shape);
  if (count == 1) {
    return true;
  }
  if (count != channels || shape.size() > 4 || shape.size() < 3) {
    return false;
  }
  // [C, 1, 1] or [1, C, 1, 1].
  std::size_t cAxis = shape.size() - 3;
  return shape[cAxis] == channels;
}

/// The element-wise form of an Add, Sub or Mul node.
NpuOpKind elementwiseForm(OpKind op) {
  return op == OpKind::Add ? NpuOpKind::Add : op == OpKind::Sub ? NpuOpKind::Sub : NpuOpKind::Mul;
}

NpuSupport binarySupport(const Graph& graph, const Node& node) {
  ValueId a = node.input(0);
  ValueId b = node.input(1);
  bool aAct = isFloatActivation(graph, a);
  bool bAct = isFloatActivation(graph, b);
  FusedActivation act = fusedActivation(node);
  if (act.op != OpKind::Identity && act.op != OpKind::Relu && act.op != OpKind::Clip) {
    return host(fmt::format("fused activation {} has no element-wise NPU form", opName(act.op)));
  }
  if (aAct && bAct &&
      (node.op == OpKind::Add || node.op == OpKind::Sub || node.op == OpKind::Mul)) {
    // One shape, or one operand [1, C, 1, 1] broadcast over the other's pixels (squeeze-
    // excitation, channel attention): the LOAD replicates it with a column stride of 0.
    const Shape& out = graph.value(node.outputs[0]).shape;
    auto fits = [&](ValueId v) {
      const Shape& s = graph.value(v).shape;
      return isNpuActivation(graph, v) &&
             (s == out || (s == Shape{1, out[1], 1, 1} && out.size() == 4));
    };
    if (!isNpuActivation(graph, node.outputs[0]) || !fits(a) || !fits(b)) {
      return host(
          "operands are not two [1, C, H, W] tensors of one shape or one of them [1, C, 1, 1]");
    }
    return npu(elementwiseForm(node.op));
  }
  // One activation and one constant: a depthwise 1x1 conv (a per-channel affine).
  ValueId x = aAct ? a : b;
  ValueId c = aAct ? b : a;
  const TensorData* constant = constantOf(graph, c);
  if (!isFloatActivation(graph, x) || constant == nullptr) {
    return host(fmt::format("{} of two activations has no NPU form", opName(node.op)));
  }
  if (!isNpuActivation(graph, x) || graph.value(node.outputs[0]).shape != graph.value(x).shape) {
    return host("the output does not have the activation's [1, C, H, W] shape");
  }
  if (!perChannelBroadcast(graph.value(c).shape, graph.value(x).shape[1])) {
    // A constant of the activation's whole shape (a position embedding): an element-wise op
    // whose second operand is a constant tensor in DDR.
    if (graph.value(c).shape != graph.value(x).shape || constant->dtype() != DType::Float32) {
      return host("the constant is not per channel, scalar or of the activation's whole shape");
    }
    if (node.op != OpKind::Add && node.op != OpKind::Sub && node.op != OpKind::Mul) {
      return host(
          fmt::format("{} with a whole-shape constant has no NPU form (Add, Sub and Mul have)",
                      opName(node.op)));
    }
    return npu(elementwiseForm(node.op));
  }
  if (node.op == OpKind::Div) {
    if (!aAct) {
      return host("division of a constant by an activation has no NPU form");
    }
    std::span<const float> v = constant->floats();
    if (std::any_of(v.begin(), v.end(), [](float d) { return d == 0.0F || !std::isfinite(d); })) {
      return host("division by zero or a non-finite constant");
    }
  }
  return npu(NpuOpKind::ChannelAffine);
}

NpuSupport poolSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  const Shape& in = graph.value(node.input(0)).shape;
  if (node.op == OpKind::GlobalAveragePool) {
    return npu(NpuOpKind::GlobalAvgPool);
  }
  if (node.op == OpKind::GlobalMaxPool) {
    if (!limits::poolWindowFits(in[2], in[3], 1, 1)) {
      return host(fmt::format("pooling window above the NPU's limit of {}", limits::kPoolWindowH));
    }
    return npu(NpuOpKind::MaxPool);
  }
  golden::Pool2dParams p;
  try {
    p = poolParams(node, in);
  } catch (const Error& e) {
    return hostFor(e);
  }
  if (p.dilations[0] != 1 || p.dilations[1] != 1) {
    return host("dilated pooling has no NPU form");
  }
  if (!limits::poolWindowFits(p.kernel[0], p.kernel[1], p.strides[0], p.strides[1])) {
    return host(fmt::format("pooling window above {} or stride above {}", limits::kPoolWindowH,
                            limits::kPoolStrideH));
  }
  std::array<std::int64_t, 2> extra = ceilModeExtraPadding(p, in);
  if (node.op == OpKind::AveragePool) {
    bool padded = std::any_of(p.pads.begin(), p.pads.end(), [](std::int64_t v) { return v > 0; });
    if (padded && !p.countIncludePad) {
      return host("average pool with count_include_pad=0 and padding (the divisor varies)");
    }
    if (extra[0] > 0 || extra[1] > 0) {
      return host("ceil_mode average pool with a partial last window (the divisor varies)");
    }
    return npu(NpuOpKind::AvgPool);
  }
  return npu(NpuOpKind::MaxPool);
}

NpuSupport sliceSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  for (std::size_t i = 1; i < node.inputs.size(); ++i) {
    if (node.input(i).valid() && constantOf(graph, node.input(i)) == nullptr) {
      return host("the slice bounds are not constants");
    }
  }
  if (constantOf(graph, node.input(1)) == nullptr || constantOf(graph, node.input(2)) == nullptr) {
    return host("the slice has no constant starts and ends");
  }
  const Shape& in = graph.value(node.input(0)).shape;
  const Shape& out = graph.value(node.outputs[0]).shape;
  std::vector<std::int64_t> axes(constantOf(graph, node.input(1))->toInt64().size());
  std::iota(axes.begin(), axes.end(), 0);
  if (node.input(3).valid()) {
    axes = constantOf(graph, node.input(3))->toInt64();
  }
  std::vector<std::int64_t> steps = node.input(4).valid()
                                        ? constantOf(graph, node.input(4))->toInt64()
                                        : std::vector<std::int64_t>(axes.size(), 1);
  for (std::size_t i = 0; i < axes.size() && i < steps.size(); ++i) {
    std::int64_t axis = axes[i] < 0 ? axes[i] + 4 : axes[i];
    if (axis < 0 || axis > 3) {
      return host("a slice axis outside the four of [1, C, H, W]");
    }
    bool whole = in[static_cast<std::size_t>(axis)] == out[static_cast<std::size_t>(axis)];
    // Channels are read as one run of bytes; rows and columns at any DDR stride.
    if ((axis == 0 && !whole) || (axis == 1 && steps[i] != 1) || steps[i] < 1) {
      return host(
          "only consecutive channels, and rows and columns at a positive step, run on "
          "the NPU");
    }
  }
  return npu(NpuOpKind::Slice);
}

NpuSupport gatherSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  const TensorData* indices = constantOf(graph, node.input(1));
  std::int64_t axis = node.attributes.getInt("axis", 0);
  if (indices == nullptr || (axis != 1 && axis != -3) ||
      shuffleGroups(indices->toInt64(), graph.value(node.input(0)).shape[1]) == 0) {
    return host(
        "only a channel shuffle (a Gather of the channels in shuffle order) runs on the NPU");
  }
  return npu(NpuOpKind::ChannelShuffle);
}

/// Concatenation along channels (axis 1) of [1, C, H, W] or [1, C] tensors, or along rows (axis
/// 2) of [1, C, H, W] tensors of one C and W (NHWC: each input a contiguous block of the output).
/// An input may be an f32 constant of such a shape (a class token), one at least an activation.
NpuSupport concatSupport(const Graph& graph, const Node& node) {
  const Shape& out = graph.value(node.outputs.at(0)).shape;
  std::int64_t axis = node.attributes.getInt("axis", 0);
  if (axis < 0) {
    axis += static_cast<std::int64_t>(out.size());
  }
  const bool rows = axis == 2 && out.size() == 4;
  if (!nhwcShapeOf(out) || (axis != 1 && !rows)) {
    return host(
        "only concatenation along channels of [1, C, H, W] or [1, C] tensors, or along rows (H) "
        "of [1, C, H, W] tensors, runs on the NPU");
  }
  bool anyActivation = false;
  for (ValueId in : node.inputs) {
    const TensorData* constant = constantOf(graph, in);
    const bool activation = isFloatActivation(graph, in);
    if ((!activation && (constant == nullptr || constant->dtype() != DType::Float32)) ||
        !nhwcShapeOf(graph.value(in).shape)) {
      return host("a concatenated input is not an f32 activation or constant of NHWC form");
    }
    const Shape& s = graph.value(in).shape;
    if (rows && (s.size() != 4 || s[1] != out[1] || s[3] != out[3])) {
      return host("a row-concatenated input differs from the output in channels or width");
    }
    anyActivation = anyActivation || activation;
  }
  if (!anyActivation) {
    return host("every concatenated input is a constant");
  }
  return npu(NpuOpKind::Concat);
}

NpuSupport resizeSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  const Shape& in = graph.value(node.input(0)).shape;
  const Shape& out = graph.value(node.outputs[0]).shape;
  const bool linear = node.attributes.getString("mode", "nearest") == "linear";
  if (!linear && (in[1] != out[1] || out[2] % in[2] != 0 || out[3] % in[3] != 0)) {
    return host("only nearest upsampling by integer factors runs on the NPU");
  }
  const TensorData* scales = constantOf(graph, node.input(2));
  const TensorData* sizes = constantOf(graph, node.input(3));
  try {
    std::vector<float> s;
    std::vector<std::int64_t> z;
    if (scales != nullptr && scales->size() > 0) {
      s = scales->toFloat();
    } else if (sizes != nullptr) {
      z = sizes->toInt64();
    } else {
      return host("scales and sizes are not constants");
    }
    golden::ResizeParams params = resizeParams(node, in, s, z);
    if (params.mode == golden::ResizeMode::Linear) {
      // One axis at a time (split-linear-resize cut a bilinear one in two), each output a
      // two-tap depthwise CONV; N and C must stay as they are.
      const auto kept = [&](std::size_t a) {
        return in[a] == out[a] && (s.empty() || s[a] == 1.0F);
      };
      if (!kept(0) || !kept(1) || (!kept(2) && !kept(3))) {
        return host("a linear resize runs on the NPU along rows or columns, one at a time");
      }
      return npu(NpuOpKind::ResizeLinear);
    }
    std::vector<std::vector<std::int64_t>> tables = golden::nearestSourceTables(in, params);
    for (int axis = 2; axis < 4; ++axis) {
      std::int64_t factor = out[axis] / in[axis];
      for (std::size_t o = 0; o < tables[axis].size(); ++o) {
        if (tables[axis][o] != static_cast<std::int64_t>(o) / factor) {
          return host("the nearest coordinate mapping is not floor(y / factor)");
        }
      }
    }
  } catch (const Error& e) {
    return hostFor(e);
  }
  return npu(NpuOpKind::Upsample);
}

NpuSupport activationSupport(const Graph& graph, const Node& node) {
  if (!isFloatActivation(graph, node.input(0)) || !nhwcShapeOf(graph.value(node.input(0)).shape)) {
    return host("the input is not an f32 [1, C, H, W] or [1, C] activation");
  }
  if (node.op == OpKind::Clip) {
    for (std::size_t i = 1; i < 3; ++i) {
      const TensorData* bound = constantOf(graph, node.input(i));
      if (node.input(i).valid() && (bound == nullptr || bound->size() != 1)) {
        return host("clip bounds are not scalar constants");
      }
    }
  }
  return npu(NpuOpKind::Lut);
}

/// A reshape-like node (Reshape, Flatten, Squeeze, Unsqueeze, Identity: the row-major order
/// kept) or a Transpose that leaves the NHWC bytes as they are is an alias under every strategy;
/// any other stays on the host.
NpuSupport aliasSupport(const Graph& graph, const Node& node) {
  const ValueId in = node.input(0);
  if (!isFloatActivation(graph, in)) {
    return host("the input is not an f32 activation");
  }
  const Shape& from = graph.value(in).shape;
  if (node.op == OpKind::Transpose) {
    std::vector<std::int64_t> perm(from.size());
    std::iota(perm.rbegin(), perm.rend(), 0);
    if (!isFreeTranspose(from, node.attributes.getInts("perm", perm))) {
      return host("the transpose moves bytes in NHWC (no NPU form)");
    }
    return npu(NpuOpKind::Alias);
  }
  if (!isFreeReshape(from, graph.value(node.outputs.at(0)).shape)) {
    return host("the reshape moves bytes in NHWC (no NPU form)");
  }
  return npu(NpuOpKind::Alias);
}

NpuSupport batchNormSupport(const Graph& graph, const Node& node) {
  if (auto reason = checkActivationInOut(graph, node)) {
    return host(*reason);
  }
  for (std::size_t i = 1; i < 5; ++i) {
    if (constantOf(graph, node.input(i)) == nullptr) {
      return host("the normalisation parameters are not constants");
    }
  }
  return npu(NpuOpKind::ChannelAffine);
}

/// A per-channel vector from a constant broadcast against C channels.
std::vector<float> perChannel(const TensorData& data, std::int64_t channels) {
  std::vector<float> v = data.toFloat();
  if (v.size() == 1) {
    v.assign(static_cast<std::size_t>(channels), v[0]);
  }
  if (static_cast<std::int64_t>(v.size()) != channels) {
    fail("constant has {} values for {} channels", v.size(), channels);
  }
  return v;
}

}  // namespace

std::string_view strategyName(DispatchStrategy strategy) {
  switch (strategy) {
    case DispatchStrategy::Conservative:
      return "conservative";
    case DispatchStrategy::Aggressive:
      return "aggressive";
    case DispatchStrategy::AllIn:
      return "allin";
  }
  return "?";
}

std::optional<DispatchStrategy> parseDispatchStrategy(std::string_view name) {
  for (DispatchStrategy s :
       {DispatchStrategy::Conservative, DispatchStrategy::Aggressive, DispatchStrategy::AllIn}) {
    if (strategyName(s) == name) {
      return s;
    }
  }
  return std::nullopt;
}

std::optional<Shape> nhwcShapeOf(const Shape& shape) {
  if (shape.size() == 4 && shape[0] == 1) {
    return Shape{1, shape[2], shape[3], shape[1]};
  }
  if (shape.size() == 2 && shape[0] == 1) {
    return Shape{1, 1, 1, shape[1]};
  }
  return std::nullopt;
}

namespace {

/// The NHWC byte offset of one step along each axis of an activation of NHWC form (nhwcShapeOf):
/// [1, C, H, W] -> {H*W*C, 1, W*C, C}, [1, C] -> {C, 1}.
std::vector<std::int64_t> nhwcByteSteps(const Shape& shape) {
  if (shape.size() == 4) {
    return {shape[2] * shape[3] * shape[1], 1, shape[3] * shape[1], shape[1]};
  }
  return {shape[1], 1};
}

}  // namespace

bool isFreeReshape(const Shape& from, const Shape& to) {
  const std::optional<Shape> a = nhwcShapeOf(from);
  const std::optional<Shape> b = nhwcShapeOf(to);
  if (!a || !b || elementCount(from) != elementCount(to)) {
    return false;
  }
  // Row-major element k = c * P + p of C channels and P pixels sits at NHWC byte p * C + c:
  // at byte k itself when C or P is 1, else by the transpose of a C x P matrix, which is the
  // same map for both shapes only when C is (element 1 sits at byte C).
  const auto inOrder = [](const Shape& nhwc) { return nhwc[3] == 1 || nhwc[1] * nhwc[2] == 1; };
  return (inOrder(*a) && inOrder(*b)) || (*a)[3] == (*b)[3];
}

bool isFreeTranspose(const Shape& from, std::span<const std::int64_t> perm) {
  if (!nhwcShapeOf(from) || perm.size() != from.size()) {
    return false;
  }
  Shape to(from.size());
  std::vector<bool> seen(from.size(), false);
  for (std::size_t j = 0; j < perm.size(); ++j) {
    if (perm[j] < 0 || perm[j] >= static_cast<std::int64_t>(from.size()) || seen[perm[j]]) {
      return false;
    }
    seen[perm[j]] = true;
    to[j] = from[perm[j]];
  }
  if (!nhwcShapeOf(to)) {
    return false;
  }
  // Input axis perm[j] becomes output axis j: every element keeps its byte when each axis
  // longer than 1 steps as many bytes in the output as in the input.
  const std::vector<std::int64_t> in = nhwcByteSteps(from);
  const std::vector<std::int64_t> out = nhwcByteSteps(to);
  for (std::size_t j = 0; j < perm.size(); ++j) {
    const auto axis = static_cast<std::size_t>(perm[j]);
    if (from[axis] > 1 && in[axis] != out[j]) {
      return false;
    }
  }
  return true;
}

/// A softmax over channels: axis 1 of an f32 [1, C, H, W] or [1, C] activation, H*W rows of C
/// values, one NORM row each (C at most NORM's row length). Opsets before 13 flatten at the axis
/// first, which is the same only when nothing follows the channels.
NpuSupport softmaxSupport(const Graph& graph, const Node& node) {
  const Shape& in = graph.value(node.input(0)).shape;
  if (!isFloatActivation(graph, node.input(0)) || !nhwcShapeOf(in)) {
    return host("the input is not an f32 [1, C, H, W] or [1, C] activation");
  }
  const std::int64_t rank = static_cast<std::int64_t>(in.size());
  std::int64_t axis = node.attributes.getInt("axis", -1);
  axis = axis < 0 ? axis + rank : axis;
  const bool flattens = node.attributes.getInt("flatten_to_2d", 0) != 0;
  if (axis != 1 || (flattens && rank == 4 && in[2] * in[3] != 1)) {
    return host("the NPU runs a softmax over the channel axis only");
  }
  if (in[1] > isa::limits::kNormLength) {
    return host(fmt::format("a softmax over {} channels is past NORM's {}-value rows", in[1],
                            isa::limits::kNormLength));
  }
  return npu(NpuOpKind::Softmax);
}

/// A LayerNorm or RMSNorm over the channels of an f32 [1, C, H, W] or [1, C] activation: H*W NORM
/// rows of C values.
NpuSupport channelLayerNormSupport(const Graph& graph, const Node& node) {
  const Shape& in = graph.value(node.input(0)).shape;
  const bool rms = node.op == OpKind::ChannelRmsNorm;
  if (!isFloatActivation(graph, node.input(0)) || !nhwcShapeOf(in)) {
    return host("the input is not an f32 [1, C, H, W] or [1, C] activation");
  }
  if (in[1] > isa::limits::kNormLength) {
    return host(fmt::format("{} over {} channels is past NORM's {}-value rows",
                            rms ? "an RMSNorm" : "a LayerNorm", in[1], isa::limits::kNormLength));
  }
  return npu(rms ? NpuOpKind::RmsNorm : NpuOpKind::LayerNorm);
}

/// A HeadMatMul of two f32 [1, C, H, W] activations: CONVs reading the second operand as
/// weights, so its alpha folds into a positive requant multiplier.
NpuSupport headMatMulSupport(const Graph& graph, const Node& node) {
  if (!isNpuActivation(graph, node.input(0)) || !isNpuActivation(graph, node.input(1)) ||
      !isNpuActivation(graph, node.outputs.at(0))) {
    return host("the operands are not f32 [1, C, H, W] activations");
  }
  const float alpha = node.attributes.getFloat("alpha", 1.0F);
  if (!(alpha > 0.0F) || !std::isfinite(alpha)) {
    return host(fmt::format("alpha {} is not a positive number (the requant multiplier)", alpha));
  }
  return npu(NpuOpKind::MatMul);
}

NpuSupport npuSupport(const Graph& graph, const Node& node, DispatchStrategy /*strategy*/) {
  if (node.outputs.size() != 1 || !isFloatActivation(graph, node.outputs[0])) {
    return host("index or multi-output op");
  }
  if (isActivation(node.op)) {
    return activationSupport(graph, node);
  }
  if (isReshapeLike(node.op) || node.op == OpKind::Transpose) {
    return aliasSupport(graph, node);
  }
  switch (node.op) {
    case OpKind::Conv:
      return convSupport(graph, node);
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Sub:
    case OpKind::Div:
      return binarySupport(graph, node);
    case OpKind::MaxPool:
    case OpKind::AveragePool:
    case OpKind::GlobalAveragePool:
    case OpKind::GlobalMaxPool:
      return poolSupport(graph, node);
    case OpKind::Concat:
      return concatSupport(graph, node);
    case OpKind::Slice:
      return sliceSupport(graph, node);
    case OpKind::Gather:
      return gatherSupport(graph, node);
    case OpKind::Resize:
      return resizeSupport(graph, node);
    case OpKind::BatchNormalization:
      return batchNormSupport(graph, node);
    case OpKind::Softmax:
      return softmaxSupport(graph, node);
    case OpKind::ChannelLayerNorm:
    case OpKind::ChannelRmsNorm:
      return channelLayerNormSupport(graph, node);
    case OpKind::HeadMatMul:
      return headMatMulSupport(graph, node);
    default:
      return host(fmt::format("the NPU has no {}", opName(node.op)));
  }
}

std::array<std::int64_t, 2> ceilModeExtraPadding(const golden::Pool2dParams& p, const Shape& in) {
  std::array<std::int64_t, 2> extra{};
  for (int axis = 0; axis < 2; ++axis) {
    std::int64_t out = golden::pooledSize(in[2 + axis], p.kernel[axis], p.strides[axis], 1,
                                          p.pads[axis], p.pads[axis + 2], p.ceilMode);
    std::int64_t needed = (out - 1) * p.strides[axis] + p.kernel[axis];
    extra[axis] =
        std::max<std::int64_t>(0, needed - (in[2 + axis] + p.pads[axis] + p.pads[axis + 2]));
  }
  return extra;
}

SliceWindow sliceWindowOf(const Graph& graph, const Node& node) {
  std::vector<std::int64_t> starts = constantOf(graph, node.input(1))->toInt64();
  std::vector<std::int64_t> axes(starts.size());
  std::iota(axes.begin(), axes.end(), 0);
  if (node.input(3).valid()) {
    axes = constantOf(graph, node.input(3))->toInt64();
  }
  std::vector<std::int64_t> steps = node.input(4).valid()
                                        ? constantOf(graph, node.input(4))->toInt64()
                                        : std::vector<std::int64_t>(axes.size(), 1);
  const Shape& in = graph.value(node.input(0)).shape;
  SliceWindow window;
  for (std::size_t i = 0; i < axes.size() && i < starts.size() && i < steps.size(); ++i) {
    std::int64_t axis = axes[i] < 0 ? axes[i] + 4 : axes[i];
    if (axis < 1 || axis > 3) {
      continue;
    }
    // ONNX: a negative start counts from the end; a positive step clamps it to [0, dim].
    std::int64_t dim = in[static_cast<std::size_t>(axis)];
    std::int64_t start =
        std::clamp<std::int64_t>(starts[i] < 0 ? starts[i] + dim : starts[i], 0, dim);
    if (axis == 1) {
      window.channelBegin = start;
    } else if (axis == 2) {
      window.rowBegin = start;
      window.rowStep = steps[i];
    } else {
      window.colBegin = start;
      window.colStep = steps[i];
    }
  }
  return window;
}

ChannelAffine channelAffineOf(const Graph& graph, const Node& node, std::int64_t channels) {
  ChannelAffine affine;
  if (node.op == OpKind::BatchNormalization) {
    std::vector<float> gamma = perChannel(*constantOf(graph, node.input(1)), channels);
    std::vector<float> beta = perChannel(*constantOf(graph, node.input(2)), channels);
    std::vector<float> mean = perChannel(*constantOf(graph, node.input(3)), channels);
    std::vector<float> var = perChannel(*constantOf(graph, node.input(4)), channels);
    float eps = node.attributes.getFloat("epsilon", 1e-5F);
    for (std::int64_t c = 0; c < channels; ++c) {
      float a = gamma[c] / std::sqrt(var[c] + eps);
      affine.scale.push_back(a);
      affine.bias.push_back(beta[c] - mean[c] * a);
    }
    return affine;
  }
  bool constFirst = constantOf(graph, node.input(0)) != nullptr;
  const TensorData* data = constantOf(graph, node.input(constFirst ? 0 : 1));
  if (data == nullptr) {
    fail("node '{}' has no constant operand", node.name);
  }
  std::vector<float> k = perChannel(*data, channels);
  auto n = static_cast<std::size_t>(channels);
  switch (node.op) {
    case OpKind::Add:
      affine.scale.assign(n, 1.0F);
      affine.bias = k;
      break;
    case OpKind::Sub:
      affine.scale.assign(n, constFirst ? -1.0F : 1.0F);
      affine.bias = k;
      if (!constFirst) {
        for (float& b : affine.bias) {
          b = -b;
        }
      }
      break;
    case OpKind::Mul:
      affine.scale = k;
      affine.bias.assign(n, 0.0F);
      break;
    case OpKind::Div:
      for (float d : k) {
        affine.scale.push_back(1.0F / d);
      }
      affine.bias.assign(n, 0.0F);
      break;
    default:
      fail("node '{}' ({}) is not a per-channel affine op", node.name, opName(node.op));
  }
  return affine;
}

}  // namespace npu::compiler
