// Op cases: names, validation, output shapes and the one-op graph with its seeded data.
#include "npu/subnet_bench/op_case.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "npu/compiler/ir/types.h"
#include "npu/subnet_bench/rng.h"
#include "npu/support/error.h"

namespace npu::bench {
namespace {

/// In golden::CoordinateTransform's order.
constexpr std::array<std::string_view, 5> kTransformNames{
    "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"};
constexpr std::array<std::string_view, 3> kPatternNames{"uniform", "extremes", "near_zero_point"};

constexpr std::int64_t kMaxSize = kMaxCaseSize;

/// The scale every tensor carries: cases state their multipliers directly, so scales only
/// matter to ops that require equal quantization (concat, upsample, slice, shuffle).
constexpr double kScale = 0.05;

template <std::size_t N>
std::optional<std::size_t> indexOf(const std::array<std::string_view, N>& names,
                                   std::string_view name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(it - names.begin());
}

void checkRange(std::int64_t value, std::int64_t lo, std::int64_t hi, std::string_view what) {
  if (value < lo || value > hi) {
    fail("case: {} {} is outside [{}, {}]", what, value, lo, hi);
  }
}

void checkRequant(const Requant& r, std::string_view what) {
  checkRange(r.multiplier, 0, std::numeric_limits<std::int32_t>::max(),
             fmt::format("{} multiplier", what));
  checkRange(r.shift, -31, 30, fmt::format("{} shift", what));
}

bool usesOutputStage(CaseKind kind) {
  return kind == CaseKind::Conv || kind == CaseKind::Add || kind == CaseKind::Sub ||
         kind == CaseKind::Mul || kind == CaseKind::MatMul || kind == CaseKind::ReduceSum ||
         kind == CaseKind::Resize;
}

bool isNorm(CaseKind kind) {
  return kind == CaseKind::Softmax || isAffineNorm(kind);
}

bool isEltwise(CaseKind kind) {
  return kind == CaseKind::Add || kind == CaseKind::Sub || kind == CaseKind::Mul;
}

/// Add and sub rescale each input (requantA, requantB, leftShift).
bool usesInputRescale(CaseKind kind) {
  return kind == CaseKind::Add || kind == CaseKind::Sub;
}

bool usesWindow(CaseKind kind) {
  return kind == CaseKind::Conv || kind == CaseKind::MaxPool || kind == CaseKind::AvgPool;
}

/// Output rows or columns of a window op; may be < 1 for a window larger than the padded input.
std::int64_t windowOutput(std::int64_t in, std::int64_t padBefore, std::int64_t padAfter,
                          std::int64_t kernel, std::int64_t dilation, std::int64_t stride) {
  const std::int64_t span = (kernel - 1) * dilation + 1;
  const std::int64_t padded = in + padBefore + padAfter;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

std::int8_t drawValue(Rng& rng, DataPattern pattern, std::int32_t zeroPoint) {
  switch (pattern) {
    case DataPattern::Extremes:
      return static_cast<std::int8_t>(rng.chance(0.5) ? -128 : 127);
    case DataPattern::NearZeroPoint:
      return static_cast<std::int8_t>(
          std::clamp<std::int64_t>(zeroPoint + rng.pick(-3, 3), -128, 127));
    case DataPattern::Uniform:
      break;
  }
  return static_cast<std::int8_t>(rng.pick(-128, 127));
}

golden::Int8Tensor drawTensor(Rng& rng, std::vector<std::int64_t> shape, DataPattern pattern,
                              std::int32_t zeroPoint) {
  golden::Int8Tensor t;
  const std::int64_t n = compiler::elementCount(shape);
  t.shape = std::move(shape);
  t.data.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    t.data.push_back(drawValue(rng, pattern, zeroPoint));
  }
  return t;
}

golden::Lut drawLut(Rng& rng) {
  golden::Lut lut{};
  for (auto& v : lut) {
    v = static_cast<std::int8_t>(rng.pick(-128, 127));
  }
  return lut;
}

golden::OutputStage outputStage(const OpCase& c) {
  golden::OutputStage stage;
  stage.zeroPoint = c.outputZeroPoint;
  stage.clipLo = c.clipLo;
  stage.clipHi = c.clipHi;
  stage.rounding = c.rounding;
  if (c.fusedLut) {
    Rng rng(c.seed, "fused_lut");
    stage.lut = drawLut(rng);
  }
  return stage;
}

golden::QuantizedMultiplier toGolden(const Requant& r) {
  return {r.multiplier, r.shift};
}

compiler::TensorId addTensor(compiler::QuantizedGraph& graph, std::string name,
                             std::vector<std::int64_t> shape, std::int32_t zeroPoint) {
  compiler::QTensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.scale = kScale;
  t.zeroPoint = zeroPoint;
  graph.tensors.push_back(std::move(t));
  return graph.tensors.size() - 1;
}

compiler::QConv buildConv(const OpCase& c) {
  compiler::QConv conv;
  const std::int64_t cg = c.channels / c.groups;
  Rng weights(c.seed, "weights");
  conv.weights.shape = {c.outChannels, c.kernel[0], c.kernel[1], cg};
  const std::int64_t lo = c.fullRangeWeights ? -128 : -127;
  const std::int64_t count = c.outChannels * c.kernel[0] * c.kernel[1] * cg;
  conv.weights.data.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t w = weights.pick(lo, 127);
    if (c.data == DataPattern::Extremes) {
      w = weights.chance(0.5) ? lo : 127;
    }
    conv.weights.data.push_back(static_cast<std::int8_t>(w));
  }
  auto& p = conv.params;
  p.strides = c.stride;
  p.dilations = c.dilation;
  p.pads = c.pads;
  p.groups = c.groups;
  p.inputZeroPoint = c.inputZeroPoint;
  Rng bias(c.seed, "bias");
  Rng multipliers(c.seed, "multipliers");
  for (std::int64_t o = 0; o < c.outChannels; ++o) {
    p.bias.push_back(static_cast<std::int32_t>(bias.pick(-c.biasRange, c.biasRange)));
    golden::QuantizedMultiplier m = toGolden(c.requant);
    if (c.perChannel && m.multiplier >= (1 << 30)) {
      m.multiplier = static_cast<std::int32_t>(
          multipliers.pick(1 << 30, std::numeric_limits<std::int32_t>::max()));
      m.shift = static_cast<std::int32_t>(
          std::clamp<std::int64_t>(m.shift + multipliers.pick(-2, 2), -31, 30));
    }
    p.multipliers.push_back(m);
  }
  p.output = outputStage(c);
  return conv;
}

}  // namespace

std::string_view caseKindName(CaseKind kind) {
  return compiler::npuOpName(kind);
}

std::optional<CaseKind> parseCaseKind(std::string_view name) {
  return compiler::parseNpuOp(name);
}

std::string_view opFamilyName(OpFamily family) {
  return compiler::npuOpFamilyName(family);
}

std::optional<OpFamily> parseOpFamily(std::string_view name) {
  return compiler::parseNpuOpFamily(name);
}

OpFamily familyOf(CaseKind kind) {
  return compiler::npuOpInfo(kind).family;
}

std::string_view transformName(golden::CoordinateTransform transform) {
  return kTransformNames[static_cast<std::size_t>(transform)];
}

std::optional<golden::CoordinateTransform> parseTransform(std::string_view name) {
  const auto i = indexOf(kTransformNames, name);
  return i ? std::optional<golden::CoordinateTransform>(
                 static_cast<golden::CoordinateTransform>(*i))
           : std::nullopt;
}

std::string_view dataPatternName(DataPattern pattern) {
  return kPatternNames[static_cast<std::size_t>(pattern)];
}

std::optional<DataPattern> parseDataPattern(std::string_view name) {
  const auto i = indexOf(kPatternNames, name);
  return i ? std::optional<DataPattern>(static_cast<DataPattern>(*i)) : std::nullopt;
}

void validateCase(const OpCase& c) {
  checkRange(c.height, 1, kMaxSize, "height");
  checkRange(c.width, 1, kMaxSize, "width");
  checkRange(c.channels, 1, kMaxSize, "channels");
  checkRange(c.inputZeroPoint, -128, 127, "input zero point");
  if (isEltwise(c.kind)) {
    checkRange(c.inputZeroPointB, -128, 127, "second input zero point");
  }
  if (usesOutputStage(c.kind)) {
    checkRequant(c.requant, "output");
    checkRange(c.outputZeroPoint, -128, 127, "output zero point");
    checkRange(c.clipLo, -128, 127, "clip low bound");
    checkRange(c.clipHi, -128, 127, "clip high bound");
    if (c.clipLo > c.clipHi) {
      fail("case: clip [{}, {}] is empty", c.clipLo, c.clipHi);
    }
  }
  if (usesInputRescale(c.kind)) {
    checkRequant(c.requantA, "input a");
    checkRequant(c.requantB, "input b");
    checkRange(c.leftShift, 0, 23, "left shift");
  }
  if (usesWindow(c.kind)) {
    for (int i = 0; i < 2; ++i) {
      checkRange(c.kernel[i], 1, kMaxSize, "kernel size");
      checkRange(c.stride[i], 1, kMaxSize, "stride");
    }
    for (const std::int64_t pad : c.pads) {
      checkRange(pad, 0, kMaxSize, "padding");
    }
  }
  if (c.kind == CaseKind::Conv) {
    checkRange(c.outChannels, 1, kMaxSize, "output channels");
    checkRange(c.dilation[0], 1, kMaxSize, "dilation");
    checkRange(c.dilation[1], 1, kMaxSize, "dilation");
    checkRange(c.groups, 1, kMaxSize, "groups");
    checkRange(c.biasRange, 0, std::numeric_limits<std::int32_t>::max(), "bias range");
    if (c.channels % c.groups != 0 || c.outChannels % c.groups != 0) {
      fail("case: groups {} must divide both the input channels {} and the output channels {}",
           c.groups, c.channels, c.outChannels);
    }
  }
  if (c.kind == CaseKind::MatMul) {
    checkRange(c.outChannels, 1, kMaxSize, "matmul columns");
    validateMatMulViews(c);
  }
  if (isNorm(c.kind)) {
    checkRange(c.channels, 1, 4095, "row length (channels)");
    checkRange(c.clipLo, -128, 127, "clip low bound");
    checkRange(c.clipHi, -128, 127, "clip high bound");
    if (c.clipLo > c.clipHi) {
      fail("case: clip [{}, {}] is empty", c.clipLo, c.clipHi);
    }
    auto positive = [](double v, std::string_view what) {
      if (!(v > 1e-6 && v < 1e6)) {
        fail("case: {} {} is outside (1e-6, 1e6)", what, v);
      }
    };
    positive(c.inputScale, "input scale");
    if (isAffineNorm(c.kind)) {
      positive(c.outputScale, "output scale");
      if (!(c.epsilon >= 0 && c.epsilon < 1)) {
        fail("case: epsilon {} is outside [0, 1)", c.epsilon);
      }
      checkRange(c.outputZeroPoint, -128, 127, "output zero point");
    }
  }
  if (c.kind == CaseKind::Concat) {
    if (c.concatChannels.empty()) {
      fail("case: a concat needs at least two inputs");
    }
    for (const std::int64_t channels : c.concatChannels) {
      checkRange(channels, 1, kMaxSize, "concat input channels");
    }
  }
  if (c.kind == CaseKind::Upsample) {
    checkRange(c.factor[0], 1, 64, "upsample factor");
    checkRange(c.factor[1], 1, 64, "upsample factor");
  }
  if (c.kind == CaseKind::Resize) {
    checkRange(c.resizeAxis, 1, 2, "resize axis");
    checkRange(c.resizeLength, 1, kMaxSize, "resize length");
  }
  if (c.kind == CaseKind::Slice) {
    checkRange(c.channelBegin, 0, c.channels - 1, "slice channel begin");
    checkRange(c.sliceChannels, 1, c.channels - c.channelBegin, "slice channels");
    checkRange(c.rowBegin, 0, c.height - 1, "slice row begin");
    checkRange(c.rowStep, 1, kMaxSize, "slice row step");
    checkRange(c.sliceRows, 1, sliceCountToEnd(c.height, c.rowBegin, c.rowStep), "slice rows");
    checkRange(c.colBegin, 0, c.width - 1, "slice column begin");
    checkRange(c.colStep, 1, kMaxSize, "slice column step");
    checkRange(c.sliceCols, 1, sliceCountToEnd(c.width, c.colBegin, c.colStep), "slice columns");
  }
  if (c.kind == CaseKind::Shuffle) {
    checkRange(c.groups, 2, c.channels, "shuffle groups");
    if (c.channels % c.groups != 0) {
      fail("case: shuffle groups {} must divide the channels {}", c.groups, c.channels);
    }
  }
  if (usesWindow(c.kind)) {
    const std::array<std::int64_t, 2> dilation =
        c.kind == CaseKind::Conv ? c.dilation : std::array<std::int64_t, 2>{1, 1};
    const std::int64_t oh =
        windowOutput(c.height, c.pads[0], c.pads[2], c.kernel[0], dilation[0], c.stride[0]);
    const std::int64_t ow =
        windowOutput(c.width, c.pads[1], c.pads[3], c.kernel[1], dilation[1], c.stride[1]);
    if (oh < 1 || ow < 1) {
      fail("case: the {}x{} window (dilation {}x{}) does not fit the {}x{} input padded by {}",
           c.kernel[0], c.kernel[1], dilation[0], dilation[1], c.height, c.width,
           fmt::join(c.pads, ","));
    }
  }
}

OpCase normalizedCase(OpCase c) {
  const OpCase defaults;
  if (!isEltwise(c.kind)) {
    c.inputZeroPointB = defaults.inputZeroPointB;
    c.perChannelB = defaults.perChannelB;
  }
  if (c.kind != CaseKind::Slice) {
    c.channelBegin = defaults.channelBegin;
    c.sliceChannels = defaults.sliceChannels;
    c.rowBegin = defaults.rowBegin;
    c.rowStep = defaults.rowStep;
    c.sliceRows = defaults.sliceRows;
    c.colBegin = defaults.colBegin;
    c.colStep = defaults.colStep;
    c.sliceCols = defaults.sliceCols;
  }
  if (c.kind != CaseKind::Concat) {
    c.concatChannels.clear();
  }
  if (c.kind != CaseKind::Conv && c.kind != CaseKind::Shuffle) {
    c.groups = defaults.groups;
  }
  if (c.kind != CaseKind::MatMul) {
    c.transposedB = defaults.transposedB;
    c.producedB = defaults.producedB;
    c.tokensA = defaults.tokensA;
    c.tokensB = defaults.tokensB;
    c.mergedY = defaults.mergedY;
    c.bFromA = defaults.bFromA;
  }
  if (c.kind != CaseKind::Conv && c.kind != CaseKind::MatMul) {
    c.outChannels = defaults.outChannels;
  }
  if (c.kind != CaseKind::Conv) {
    c.dilation = defaults.dilation;
    c.biasRange = defaults.biasRange;
    c.fullRangeWeights = defaults.fullRangeWeights;
    c.perChannel = defaults.perChannel;
  }
  if (!usesWindow(c.kind)) {
    c.kernel = defaults.kernel;
    c.stride = defaults.stride;
    c.pads = defaults.pads;
  }
  if (!usesOutputStage(c.kind)) {
    c.requant = defaults.requant;
    if (!isAffineNorm(c.kind)) {
      c.outputZeroPoint = defaults.outputZeroPoint;
    }
    if (!isNorm(c.kind)) {
      c.clipLo = defaults.clipLo;
      c.clipHi = defaults.clipHi;
    }
    c.fusedLut = defaults.fusedLut;
    c.rounding = defaults.rounding;
  }
  if (!isNorm(c.kind)) {
    c.inputScale = defaults.inputScale;
  }
  if (!isAffineNorm(c.kind)) {
    c.outputScale = defaults.outputScale;
    c.epsilon = defaults.epsilon;
  }
  if (!usesInputRescale(c.kind)) {
    c.requantA = defaults.requantA;
    c.requantB = defaults.requantB;
    c.leftShift = defaults.leftShift;
  }
  if (c.kind != CaseKind::Upsample) {
    c.factor = defaults.factor;
  }
  if (c.kind != CaseKind::Resize) {
    c.resizeAxis = defaults.resizeAxis;
    c.resizeLength = defaults.resizeLength;
    c.transform = defaults.transform;
  }
  return c;
}

std::int64_t sliceCountToEnd(std::int64_t extent, std::int64_t begin, std::int64_t step) {
  if (begin < 0 || begin >= extent || step < 1) {
    return 1;
  }
  return (extent - 1 - begin) / step + 1;
}

std::vector<std::int64_t> caseOutputShape(const OpCase& c) {
  switch (c.kind) {
    case CaseKind::Conv:
    case CaseKind::MaxPool:
    case CaseKind::AvgPool: {
      const std::array<std::int64_t, 2> dilation =
          c.kind == CaseKind::Conv ? c.dilation : std::array<std::int64_t, 2>{1, 1};
      return {1,
              windowOutput(c.height, c.pads[0], c.pads[2], c.kernel[0], dilation[0], c.stride[0]),
              windowOutput(c.width, c.pads[1], c.pads[3], c.kernel[1], dilation[1], c.stride[1]),
              c.kind == CaseKind::Conv ? c.outChannels : c.channels};
    }
    case CaseKind::GlobalAvgPool:
      return {1, 1, 1, c.channels};
    case CaseKind::Concat: {
      std::int64_t total = c.channels;
      for (const std::int64_t more : c.concatChannels) {
        total += more;
      }
      return {1, c.height, c.width, total};
    }
    case CaseKind::Upsample:
      return {1, c.height * c.factor[0], c.width * c.factor[1], c.channels};
    case CaseKind::Resize:
      return {1, c.resizeAxis == 1 ? c.resizeLength : c.height,
              c.resizeAxis == 2 ? c.resizeLength : c.width, c.channels};
    case CaseKind::Slice:
      return {1, c.sliceRows, c.sliceCols, c.sliceChannels};
    case CaseKind::MatMul:
      return matMulShapeY(c);
    case CaseKind::ReduceMax:
    case CaseKind::ReduceSum:
      return {1, c.height, c.width, 1};
    case CaseKind::Add:
    case CaseKind::Sub:
    case CaseKind::Mul:
    case CaseKind::Lut:
    case CaseKind::Shuffle:
    case CaseKind::Softmax:
    case CaseKind::LayerNorm:
    case CaseKind::RmsNorm:
      break;
  }
  return {1, c.height, c.width, c.channels};
}

std::int64_t caseWork(const OpCase& c) {
  const auto out = caseOutputShape(c);
  const std::int64_t elements = out[1] * out[2] * out[3];
  if (c.kind == CaseKind::Conv) {
    return elements * c.kernel[0] * c.kernel[1] * (c.channels / c.groups);
  }
  if (c.kind == CaseKind::MatMul) {
    return elements * c.channels;
  }
  if (c.kind == CaseKind::ReduceMax || c.kind == CaseKind::ReduceSum) {
    return c.height * c.width * c.channels;
  }
  if (c.kind == CaseKind::MaxPool || c.kind == CaseKind::AvgPool) {
    return elements * c.kernel[0] * c.kernel[1];
  }
  if (c.kind == CaseKind::GlobalAvgPool) {
    return c.height * c.width * c.channels;
  }
  if (c.kind == CaseKind::Resize) {
    return 2 * elements;
  }
  if (isNorm(c.kind)) {
    return 3 * elements;
  }
  return elements;
}

namespace {

/// The NORM op of a softmax, LayerNorm or RMSNorm case: its table or epsilon term, and random
/// gamma and beta per position from the case's seed.
compiler::QNorm normOp(const OpCase& c, const std::string& name, compiler::TensorId x,
                       compiler::TensorId y) {
  if (c.kind == CaseKind::Softmax) {
    compiler::QNorm norm{name, x, y, compiler::QNorm::Kind::Softmax, {}, {}};
    norm.softmax.expTable = golden::softmaxExpTable(c.inputScale);
    norm.softmax.clipLo = c.clipLo;
    norm.softmax.clipHi = c.clipHi;
    return norm;
  }
  compiler::QNorm norm{name,
                       x,
                       y,
                       c.kind == CaseKind::LayerNorm ? compiler::QNorm::Kind::LayerNorm
                                                     : compiler::QNorm::Kind::RmsNorm,
                       {},
                       {}};
  golden::LayerNormInt8Params& p = norm.layerNorm;
  p.inputZeroPoint = c.inputZeroPoint;
  p.epsilonTerm = golden::layerNormEpsilonTerm(c.channels, c.epsilon, c.inputScale);
  Rng affine(c.seed, "gamma_beta");
  for (std::int64_t j = 0; j < c.channels; ++j) {
    const double gamma = affine.chance(0.05) ? 0.0 : affine.real(-2.0, 2.0);
    const double beta = affine.real(-1.0, 1.0);
    p.positions.push_back(golden::layerNormPosition(gamma, beta, c.channels, c.outputScale));
  }
  p.outputZeroPoint = c.outputZeroPoint;
  p.clipLo = c.clipLo;
  p.clipHi = c.clipHi;
  return norm;
}

}  // namespace

CaseGraph buildCaseGraph(const OpCase& c) {
  CaseGraph built;
  compiler::QuantizedGraph& g = built.graph;
  const std::string name(caseKindName(c.kind));
  Rng inputs(c.seed, "inputs");
  const compiler::TensorId x = addTensor(
      g, "x",
      c.kind == CaseKind::MatMul ? matMulShapeA(c)
                                 : std::vector<std::int64_t>{1, c.height, c.width, c.channels},
      c.inputZeroPoint);
  g.inputs.push_back(x);
  built.inputs.push_back(drawTensor(inputs, g.tensors[x].shape, c.data, c.inputZeroPoint));
  const std::int32_t outZeroPoint = c.kind == CaseKind::Softmax ? golden::kSoftmaxOutputZeroPoint
                                    : usesOutputStage(c.kind) || isAffineNorm(c.kind)
                                        ? c.outputZeroPoint
                                        : c.inputZeroPoint;
  std::vector<compiler::TensorId> concatInputs{x};
  compiler::TensorId b = 0;
  if (isEltwise(c.kind)) {
    const std::vector<std::int64_t> shapeB =
        c.perChannelB ? std::vector<std::int64_t>{1, 1, 1, c.channels}
                      : std::vector<std::int64_t>{1, c.height, c.width, c.channels};
    b = addTensor(g, "b", shapeB, c.inputZeroPointB);
    g.inputs.push_back(b);
    built.inputs.push_back(drawTensor(inputs, g.tensors[b].shape, c.data, c.inputZeroPointB));
  }
  compiler::TensorId a = x;
  if (c.kind == CaseKind::MatMul && c.bFromA) {
    b = x;
    if (c.producedB) {
      // a and b = LUT[x]: one tensor the program wrote, read by both operands.
      b = a = addTensor(g, "qkv", g.tensors[x].shape, c.inputZeroPoint);
      Rng table(c.seed, "b_lut");
      g.ops.emplace_back(compiler::QLut{"qkv_lut", x, a, drawLut(table)});
    }
  } else if (c.kind == CaseKind::MatMul) {
    const std::vector<std::int64_t> shapeB = matMulShapeB(c);
    if (c.producedB) {
      // b = LUT[raw]: written by the program before the matmul reads it as weights.
      const compiler::TensorId raw = addTensor(g, "b_raw", shapeB, 0);
      g.inputs.push_back(raw);
      built.inputs.push_back(drawTensor(inputs, shapeB, c.data, 0));
      b = addTensor(g, "b", shapeB, 0);
      Rng table(c.seed, "b_lut");
      g.ops.emplace_back(compiler::QLut{"b_lut", raw, b, drawLut(table)});
    } else {
      b = addTensor(g, "b", shapeB, 0);
      g.inputs.push_back(b);
      built.inputs.push_back(drawTensor(inputs, shapeB, c.data, 0));
    }
  }
  if (c.kind == CaseKind::Concat) {
    for (std::size_t i = 0; i < c.concatChannels.size(); ++i) {
      const compiler::TensorId id =
          addTensor(g, fmt::format("x{}", i + 1), {1, c.height, c.width, c.concatChannels[i]},
                    c.inputZeroPoint);
      g.inputs.push_back(id);
      concatInputs.push_back(id);
      built.inputs.push_back(drawTensor(inputs, g.tensors[id].shape, c.data, c.inputZeroPoint));
    }
  }
  const compiler::TensorId y = addTensor(g, "y", caseOutputShape(c), outZeroPoint);
  g.outputs.push_back(y);
  golden::PoolInt8Params pool;
  pool.kernel = c.kernel;
  pool.strides = c.stride;
  pool.pads = c.pads;
  switch (c.kind) {
    case CaseKind::Conv: {
      compiler::QConv conv = buildConv(c);
      conv.name = name;
      conv.input = x;
      conv.output = y;
      g.ops.emplace_back(std::move(conv));
      break;
    }
    case CaseKind::Add:
    case CaseKind::Sub: {
      golden::AddInt8Params p;
      p.zeroPointA = c.inputZeroPoint;
      p.zeroPointB = c.inputZeroPointB;
      p.leftShift = c.leftShift;
      p.multiplierA = toGolden(c.requantA);
      p.multiplierB = toGolden(c.requantB);
      p.multiplierOut = toGolden(c.requant);
      p.output = outputStage(c);
      if (c.kind == CaseKind::Sub) {
        g.ops.emplace_back(compiler::QSub{name, x, b, y, p});
      } else {
        g.ops.emplace_back(compiler::QAdd{name, x, b, y, p});
      }
      break;
    }
    case CaseKind::Mul: {
      golden::MulInt8Params p;
      p.zeroPointA = c.inputZeroPoint;
      p.zeroPointB = c.inputZeroPointB;
      p.multiplierOut = toGolden(c.requant);
      p.output = outputStage(c);
      g.ops.emplace_back(compiler::QMul{name, x, b, y, p});
      break;
    }
    case CaseKind::MaxPool:
      g.ops.emplace_back(compiler::QMaxPool{name, x, y, pool});
      break;
    case CaseKind::AvgPool:
      g.ops.emplace_back(compiler::QAvgPool{name, x, y, pool});
      break;
    case CaseKind::GlobalAvgPool:
      g.ops.emplace_back(compiler::QGlobalAvgPool{name, x, y});
      break;
    case CaseKind::Lut: {
      Rng table(c.seed, "lut");
      g.ops.emplace_back(compiler::QLut{name, x, y, drawLut(table)});
      break;
    }
    case CaseKind::Concat:
      g.ops.emplace_back(compiler::QConcat{name, concatInputs, y});
      break;
    case CaseKind::Upsample:
      g.ops.emplace_back(compiler::QUpsample{name, x, y, c.factor[0], c.factor[1]});
      break;
    case CaseKind::Slice:
      g.ops.emplace_back(compiler::QSlice{name, x, y, c.channelBegin, c.rowBegin, c.rowStep,
                                          c.colBegin, c.colStep});
      break;
    case CaseKind::Shuffle:
      g.ops.emplace_back(compiler::QShuffle{name, x, y, c.groups});
      break;
    case CaseKind::ReduceMax:
      g.ops.emplace_back(compiler::QReduce{name, x, y, compiler::QReduce::Kind::Max, {}});
      break;
    case CaseKind::ReduceSum: {
      golden::ReduceSumInt8Params p;
      p.inputZeroPoint = c.inputZeroPoint;
      p.multiplier = toGolden(c.requant);
      p.output = outputStage(c);
      g.ops.emplace_back(compiler::QReduce{name, x, y, compiler::QReduce::Kind::Sum, p});
      break;
    }
    case CaseKind::Resize: {
      golden::ResizeLinearInt8Params p;
      p.axis = c.resizeAxis;
      const std::int64_t from = c.resizeAxis == 1 ? c.height : c.width;
      p.taps = golden::linearResizeTaps(
          from, c.resizeLength, static_cast<float>(c.resizeLength) / static_cast<float>(from),
          c.transform);
      p.inputZeroPoint = c.inputZeroPoint;
      p.multiplier = toGolden(c.requant);
      p.output = outputStage(c);
      g.ops.emplace_back(compiler::QResizeLinear{name, x, y, p});
      break;
    }
    case CaseKind::Softmax:
    case CaseKind::LayerNorm:
    case CaseKind::RmsNorm:
      g.ops.emplace_back(normOp(c, name, x, y));
      break;
    case CaseKind::MatMul: {
      golden::MatMulInt8Params p;
      p.zeroPointA = c.inputZeroPoint;
      p.layoutB = c.transposedB ? golden::MatMulLayout::NK : golden::MatMulLayout::KN;
      p.multiplier = toGolden(c.requant);
      p.output = outputStage(c);
      std::optional<compiler::HeadMatMulGeometry> geometry;
      if (isStridedMatMul(c)) {
        geometry = matMulCaseGeometry(c);
      }
      g.ops.emplace_back(compiler::QMatMul{name, a, b, y, p, geometry});
      break;
    }
  }
  return built;
}

std::string describeCase(const OpCase& c) {
  const auto out = caseOutputShape(c);
  std::string text =
      fmt::format("{} {}x{}x{}", caseKindName(c.kind), c.height, c.width, c.channels);
  if (c.kind == CaseKind::Concat) {
    text += fmt::format("+{}", fmt::join(c.concatChannels, "+"));
  }
  if (isEltwise(c.kind) && c.perChannelB) {
    text += fmt::format(" (b 1x1x{})", c.channels);
  }
  text += fmt::format(" -> {}x{}x{}", out[1], out[2], out[3]);
  if (c.kind == CaseKind::Slice) {
    text += fmt::format(" channels [{},{})", c.channelBegin, c.channelBegin + c.sliceChannels);
    // Rows and columns as Python slices (begin:end:step, end past the last one kept), when the
    // slice does not keep them all.
    if (c.rowBegin != 0 || c.rowStep != 1 || c.sliceRows != c.height) {
      text += fmt::format(" rows {}:{}:{}", c.rowBegin,
                          c.rowBegin + (c.sliceRows - 1) * c.rowStep + 1, c.rowStep);
    }
    if (c.colBegin != 0 || c.colStep != 1 || c.sliceCols != c.width) {
      text += fmt::format(" cols {}:{}:{}", c.colBegin,
                          c.colBegin + (c.sliceCols - 1) * c.colStep + 1, c.colStep);
    }
  }
  if (c.kind == CaseKind::Shuffle) {
    text += fmt::format(" g{}", c.groups);
  }
  if (c.kind == CaseKind::MatMul) {
    text += fmt::format(" (b {}{})", c.transposedB ? "NK" : "KN", c.producedB ? ", produced" : "");
    const auto tokens = [&](std::string_view what, const std::optional<TokenView>& t) {
      if (t) {
        text += fmt::format(" {} in rows of {} at {} step {}", what, t->rowWidth, t->columnOffset,
                            t->headStep);
      }
    };
    tokens("a", c.tokensA);
    tokens("b", c.tokensB);
    if (c.mergedY) {
      text += " y merged";
    }
    if (c.bFromA) {
      text += " b from a";
    }
  }
  if (usesWindow(c.kind)) {
    text += fmt::format(" k{}x{} s{}x{} p{}", c.kernel[0], c.kernel[1], c.stride[0], c.stride[1],
                        fmt::join(c.pads, ","));
  }
  if (c.kind == CaseKind::Conv) {
    text += fmt::format(" d{}x{} g{}", c.dilation[0], c.dilation[1], c.groups);
  }
  if (c.kind == CaseKind::Upsample) {
    text += fmt::format(" x{}x{}", c.factor[0], c.factor[1]);
  }
  if (c.kind == CaseKind::Resize) {
    text += fmt::format(" along {} {}", c.resizeAxis == 1 ? "rows" : "columns",
                        transformName(c.transform));
  }
  if (c.kind == CaseKind::Softmax) {
    text += fmt::format(" s_x {} clip [{},{}]", c.inputScale, c.clipLo, c.clipHi);
  }
  if (isAffineNorm(c.kind)) {
    text += fmt::format(" s_x {} s_y {} eps {} ->{} clip [{},{}]", c.inputScale, c.outputScale,
                        c.epsilon, c.outputZeroPoint, c.clipLo, c.clipHi);
  }
  text += fmt::format(" zp {}", c.inputZeroPoint);
  if (isEltwise(c.kind)) {
    text += fmt::format(",{}", c.inputZeroPointB);
  }
  if (usesOutputStage(c.kind)) {
    text += fmt::format("->{} M {}*2^{}{} clip [{},{}]{}{}", c.outputZeroPoint,
                        c.requant.multiplier, c.requant.shift, c.perChannel ? " per-channel" : "",
                        c.clipLo, c.clipHi, c.fusedLut ? " lut" : "",
                        c.rounding == golden::Rounding::Double ? " double-round" : "");
  }
  text += fmt::format(" data {} seed {}", dataPatternName(c.data), c.seed);
  return text;
}

}  // namespace npu::bench
