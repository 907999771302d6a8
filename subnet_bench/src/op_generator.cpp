// Random op cases: geometry and quantization drawn to reach the corners of every lowering.
#include "npu/subnet_bench/op_generator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "npu/isa/limits.h"
#include "npu/subnet_bench/rng.h"

namespace npu::bench {
namespace {

constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();

/// Conv multiply-accumulates above this are scaled down (keeps a case around a millisecond).
constexpr std::int64_t kMaxConvWork = 4'000'000;
/// Elements (or window reads) above this are scaled down for the other ops.
constexpr std::int64_t kMaxElementWork = 600'000;
/// The share of cases moved to an ISA field limit (when GeneratorOptions::fieldLimits).
constexpr double kFieldLimitShare = 0.01;
/// The share of conv and pool cases moved to a wide map, and of the other conv cases given a
/// large dilation.
constexpr double kWideMapShare = 0.05;
constexpr double kLargeDilationShare = 0.05;
constexpr double kLargeKernelShare = 0.03;
/// The share of add and mul cases whose second input is per-channel ([1, 1, 1, C]).
constexpr double kPerChannelBShare = 0.3;
/// The share of matmul cases whose operands are token rows (attention's head split and merge).
constexpr double kTokenRowsShare = 0.5;

std::int32_t zeroPoint(Rng& r) {
  const std::int64_t mode = r.pick(0, 9);
  if (mode < 2) {
    return r.chance(0.5) ? -128 : 127;
  }
  if (mode < 5) {
    return static_cast<std::int32_t>(r.pick(-20, 20));
  }
  return static_cast<std::int32_t>(r.pick(-128, 127));
}

DataPattern dataPattern(Rng& r) {
  const std::int64_t mode = r.pick(0, 7);
  return mode == 0 ? DataPattern::Extremes
                   : (mode == 1 ? DataPattern::NearZeroPoint : DataPattern::Uniform);
}

Requant fromReal(double m) {
  const golden::QuantizedMultiplier q = golden::quantizeMultiplier(m);
  return {q.multiplier, q.shift};
}

/// A multiplier for a requant whose input has roughly `inputSpread` standard deviation: mostly
/// one that maps it onto the int8 range, sometimes an extreme one.
Requant multiplier(Rng& r, double inputSpread) {
  const std::int64_t mode = r.pick(0, 99);
  if (mode < 68) {
    return fromReal(std::ldexp(48.0 / std::max(inputSpread, 1.0), static_cast<int>(r.pick(-2, 2))) *
                    r.real(0.7, 1.4));
  }
  if (mode < 76) {  // tiny: everything requantizes to about zero
    if (r.chance(0.5)) {
      return {static_cast<std::int32_t>(r.pick(1 << 30, kInt32Max)),
              static_cast<std::int32_t>(r.pick(-31, -24))};
    }
    return {static_cast<std::int32_t>(r.pick(1, 1 << 16)),
            static_cast<std::int32_t>(r.pick(-31, 0))};
  }
  if (mode < 83) {  // huge: saturates
    return {static_cast<std::int32_t>(r.pick(1 << 30, kInt32Max)),
            static_cast<std::int32_t>(r.pick(0, 30))};
  }
  if (mode < 86) {
    return {0, static_cast<std::int32_t>(r.pick(-31, 30))};
  }
  if (mode < 93) {  // exact powers of two: many rounding ties
    return {1 << 30, static_cast<std::int32_t>(r.pick(-12, 0))};
  }
  return {static_cast<std::int32_t>(r.pick(0, kInt32Max)),
          static_cast<std::int32_t>(r.pick(-31, 30))};
}

void outputStage(Rng& r, OpCase& c) {
  c.outputZeroPoint = zeroPoint(r);
  const std::int64_t clip = r.pick(0, 19);
  if (clip < 10) {
    c.clipLo = -128;
    c.clipHi = 127;
  } else if (clip < 14) {  // ReLU
    c.clipLo = std::max(-128, c.outputZeroPoint);
    c.clipHi = 127;
  } else if (clip < 16) {  // ReLU6-like
    c.clipLo = std::max(-128, c.outputZeroPoint);
    c.clipHi = static_cast<std::int32_t>(std::min<std::int64_t>(127, c.clipLo + r.pick(0, 127)));
  } else if (clip < 19) {
    const auto a = static_cast<std::int32_t>(r.pick(-128, 127));
    const auto b = static_cast<std::int32_t>(r.pick(-128, 127));
    c.clipLo = std::min(a, b);
    c.clipHi = std::max(a, b);
  } else {
    c.clipLo = c.clipHi = static_cast<std::int32_t>(r.pick(-128, 127));
  }
  c.fusedLut = r.chance(0.15);
  c.rounding = r.chance(0.5) ? golden::Rounding::Double : golden::Rounding::Single;
}

/// Padding for one axis of a window op: mostly within the window, sometimes beyond it.
std::array<std::int64_t, 2> padPair(Rng& r, std::int64_t span) {
  const std::int64_t mode = r.pick(0, 19);
  if (mode < 6) {
    return {0, 0};
  }
  if (mode < 12) {  // "same"-style, split unevenly
    const std::int64_t total = span - 1;
    const std::int64_t before = r.pick(0, total);
    return {before, total - before};
  }
  if (mode < 19) {
    return {r.pick(0, span - 1), r.pick(0, span - 1)};
  }
  return {r.pick(0, span + 2), r.pick(span, 70)};  // oversized, some beyond LOAD's 63
}

/// An input extent for a window of `span` padded by `before` + `after`.
std::int64_t extent(Rng& r, std::int64_t span, std::int64_t before, std::int64_t after,
                    std::int64_t upTo) {
  const std::int64_t least = std::max<std::int64_t>(1, span - before - after);
  return least + r.pick(0, upTo);
}

OpCase convCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Conv;
  for (int i = 0; i < 2; ++i) {
    c.kernel[i] = (i == 1 && r.chance(0.6)) ? c.kernel[0] : r.pick(1, 7);
    c.stride[i] = (i == 1 && r.chance(0.6)) ? c.stride[0] : r.pick(1, 3);
    c.dilation[i] = r.chance(0.6) ? 1 : ((i == 1 && r.chance(0.5)) ? c.dilation[0] : r.pick(1, 3));
  }
  const std::int64_t size = r.pick(0, 19);  // 0: large, 1-4: medium, else small
  const std::int64_t maxC = size == 0 ? 300 : (size < 5 ? 96 : 40);
  const std::int64_t groupMode = r.pick(0, 19);
  if (groupMode < 10) {
    c.channels = r.pick(1, maxC);
    c.outChannels = r.pick(1, maxC);
  } else if (groupMode < 14) {  // depthwise
    c.channels = c.outChannels = r.pick(1, maxC);
    c.groups = c.channels;
  } else if (groupMode < 17) {  // grouped
    c.groups = r.pick(2, 8);
    c.channels = c.groups * r.pick(1, std::max<std::int64_t>(1, maxC / 8));
    c.outChannels = c.groups * r.pick(1, std::max<std::int64_t>(1, maxC / 8));
  } else {  // channel multiplier
    c.channels = r.pick(1, std::max<std::int64_t>(1, maxC / 3));
    c.outChannels = c.channels * r.pick(2, 4);
    c.groups = c.channels;
  }
  const std::int64_t spanH = (c.kernel[0] - 1) * c.dilation[0] + 1;
  const std::int64_t spanW = (c.kernel[1] - 1) * c.dilation[1] + 1;
  const auto [top, bottom] = padPair(r, spanH);
  const auto [left, right] = padPair(r, spanW);
  c.pads = {top, left, bottom, right};
  const std::int64_t upTo = size == 0 ? 48 : (size < 5 ? 24 : 12);
  c.height = extent(r, spanH, top, bottom, upTo);
  c.width = r.chance(0.5) ? std::max(c.height, extent(r, spanW, left, right, 0))
                          : extent(r, spanW, left, right, upTo);
  // Keep the work bounded: shrink the plane, then the channels.
  while (caseWork(c) > kMaxConvWork) {
    const std::int64_t minH = std::max<std::int64_t>(1, spanH - top - bottom);
    const std::int64_t minW = std::max<std::int64_t>(1, spanW - left - right);
    if (c.height > minH || c.width > minW) {
      c.height = std::max(minH, c.height * 3 / 4);
      c.width = std::max(minW, c.width * 3 / 4);
    } else if (c.outChannels > c.groups) {
      c.outChannels = std::max(c.groups, c.outChannels / 2 / c.groups * c.groups);
    } else {
      break;
    }
  }
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  c.fullRangeWeights = r.chance(0.1);
  const std::int64_t bias = r.pick(0, 9);
  c.biasRange = bias == 0
                    ? 0
                    : (bias < 6 ? r.pick(1, 5000)
                                : (bias < 9 ? r.pick(5000, 200000) : r.pick(1 << 24, kInt32Max)));
  const double taps = static_cast<double>(c.kernel[0] * c.kernel[1] * (c.channels / c.groups));
  c.requant = multiplier(r, std::sqrt(taps) * 74.0 * 73.0);
  c.perChannel = r.chance(0.5);
  outputStage(r, c);
  return c;
}

void eltwiseShape(Rng& r, OpCase& c) {
  if (r.chance(0.05)) {  // large enough to take several element-wise tiles
    c.height = r.pick(20, 64);
    c.width = r.pick(20, 64);
    c.channels = r.pick(16, 64);
  } else {
    c.height = r.pick(1, 12);
    c.width = r.pick(1, 12);
    c.channels = r.pick(1, 48);
  }
}

/// An add or a sub: the same draw (both rescale each input with the add's multipliers).
OpCase rescaledCase(Rng& r, CaseKind kind) {
  OpCase c;
  c.kind = kind;
  eltwiseShape(r, c);
  c.inputZeroPoint = zeroPoint(r);
  c.inputZeroPointB = zeroPoint(r);
  c.data = dataPattern(r);
  outputStage(r, c);
  if (r.chance(0.7)) {
    const auto sa = static_cast<float>(r.real(0.005, 0.2));
    const auto sb = static_cast<float>(r.real(0.005, 0.2) * (r.chance(0.2) ? 50.0 : 1.0));
    const auto so = static_cast<float>(std::max(sa, sb) * r.real(0.5, 3.0));
    c.leftShift = r.chance(0.8) ? 20 : static_cast<std::int32_t>(r.pick(0, 23));
    const golden::AddInt8Params p = golden::makeAddParams(
        {sa, c.inputZeroPoint}, {sb, c.inputZeroPointB}, {so, c.outputZeroPoint}, c.leftShift);
    c.requantA = {p.multiplierA.multiplier, p.multiplierA.shift};
    c.requantB = {p.multiplierB.multiplier, p.multiplierB.shift};
    c.requant = {p.multiplierOut.multiplier, p.multiplierOut.shift};
  } else {
    c.leftShift = static_cast<std::int32_t>(r.pick(0, 23));
    const double spread = std::ldexp(74.0, c.leftShift);
    c.requantA = multiplier(r, spread / 48.0 * 2.0);
    c.requantB = multiplier(r, spread / 48.0 * 2.0);
    c.requant = multiplier(r, spread);
  }
  return c;
}

OpCase mulCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Mul;
  eltwiseShape(r, c);
  c.inputZeroPoint = zeroPoint(r);
  c.inputZeroPointB = zeroPoint(r);
  c.data = dataPattern(r);
  outputStage(r, c);
  c.requant = multiplier(r, 74.0 * 74.0);
  return c;
}

OpCase poolCase(Rng& r, CaseKind kind) {
  OpCase c;
  c.kind = kind;
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  const bool large = r.chance(0.05);
  c.channels = large ? r.pick(16, 300) : r.pick(1, 48);
  if (kind == CaseKind::GlobalAvgPool) {
    c.height = large ? r.pick(8, 60) : r.pick(1, 16);
    c.width = large ? r.pick(8, 60) : r.pick(1, 16);
  } else {
    for (int i = 0; i < 2; ++i) {
      c.kernel[i] =
          (i == 1 && r.chance(0.6)) ? c.kernel[0] : (r.chance(0.1) ? r.pick(8, 12) : r.pick(1, 5));
      c.stride[i] = (i == 1 && r.chance(0.6)) ? c.stride[0] : r.pick(1, 3);
    }
    const auto [top, bottom] = padPair(r, c.kernel[0]);
    const auto [left, right] = padPair(r, c.kernel[1]);
    c.pads = {top, left, bottom, right};
    c.height = extent(r, c.kernel[0], top, bottom, large ? 48 : 14);
    c.width = extent(r, c.kernel[1], left, right, large ? 48 : 14);
  }
  while (caseWork(c) > kMaxElementWork && c.channels > 1) {
    c.channels = c.channels / 2;
  }
  return c;
}

OpCase lutCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Lut;
  eltwiseShape(r, c);
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  return c;
}

/// Attention-like products: 1-4 heads (10%: 5-12) of [M, K] x [K, N], M, N and K 1-64 (10%:
/// sequence-length sides of 65-200 with the other sides small), b transposed half the time and
/// produced by the program half the time; zero points and the output stage as conv.
OpCase matMulCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::MatMul;
  c.height = r.chance(0.1) ? r.pick(5, 12) : r.pick(1, 4);
  const bool large = r.chance(0.1);
  c.width = large ? r.pick(65, 200) : r.pick(1, 64);
  c.channels = large ? r.pick(1, 64) : r.pick(1, 64);
  c.outChannels = large ? r.pick(65, 200) : r.pick(1, 64);
  if (large && r.chance(0.5)) {
    std::swap(c.channels, c.outChannels);  // P x V: the long side is the inner one
  }
  c.transposedB = r.chance(0.5);
  c.producedB = r.chance(0.5);
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  c.requant = multiplier(r, std::sqrt(static_cast<double>(c.channels)) * 74.0 * 73.0);
  outputStage(r, c);
  while (caseWork(c) > kMaxConvWork && c.height > 1) {
    c.height = c.height / 2;
  }
  return c;
}

/// Heads of `cols` columns as a fused qkv tensor holds them: three blocks of heads * cols
/// columns per token row (q, k, v), this operand's heads packed in block `block`.
TokenView qkvView(std::int64_t heads, std::int64_t cols, std::int64_t block) {
  return {3 * heads * cols, block * heads * cols, cols};
}

/// Heads of `cols` columns in token rows drawn at random: packed (50%), spaced by 1-9 columns
/// (20%), one matrix every head reads (10%) or overlapping (20%), at column 0 or 1-40, in a row
/// with 0 or 1-24 columns to spare.
TokenView randomTokenView(Rng& r, std::int64_t heads, std::int64_t cols) {
  TokenView t;
  const std::int64_t mode = r.pick(0, 9);
  t.headStep =
      mode < 5 ? cols : (mode < 7 ? cols + r.pick(1, 9) : (mode < 8 ? 0 : r.pick(1, cols)));
  t.columnOffset = r.chance(0.5) ? 0 : r.pick(1, 40);
  t.rowWidth =
      t.columnOffset + (heads - 1) * t.headStep + cols + (r.chance(0.5) ? 0 : r.pick(1, 24));
  return t;
}

/// Rewrites a matmul case's operands into token rows, as attention reads and writes them:
/// Q x K^T (30%: q and k of each head read from fused qkv rows, b laid out [N][K], scores as
/// planes; with as many keys as queries, half the time both read from one qkv tensor), P x V (30%:
/// scores as planes, v read from fused qkv rows laid out [K][N], the output merged into token rows)
/// or at random (40%: a and b each in token rows 60% of the time, see randomTokenView, the output
/// merged half the time; at least one of the three not planar). With `reshape`, heads are redrawn
/// from 1-8 and the attention forms get the sequence's side on both sides half the time
/// (self-attention), heads halved back while the work is too large; without it (a field-limit case)
/// only the views change.
void toTokenRows(Rng& r, OpCase& c, bool reshape) {
  const std::int64_t form = r.pick(0, 9);
  if (reshape) {
    c.height = r.pick(1, 8);
    if (form < 3 && r.chance(0.5)) {
      c.outChannels = c.width;  // as many keys as queries
    } else if (form >= 3 && form < 6 && r.chance(0.5)) {
      c.channels = c.width;  // P's rows as long as the sequence
    }
    while (caseWork(c) > kMaxConvWork && c.height > 1) {
      c.height = c.height / 2;
    }
  }
  if (form < 3) {
    c.transposedB = true;
    c.tokensA = qkvView(c.height, c.channels, 0);
    c.tokensB = qkvView(c.height, c.channels, 1);
    c.bFromA = c.outChannels == c.width && r.chance(0.5);  // q and k from one qkv tensor
  } else if (form < 6) {
    c.transposedB = false;
    c.tokensB = qkvView(c.height, c.outChannels, 2);
    c.mergedY = true;
  } else {
    if (r.chance(0.6)) {
      c.tokensA = randomTokenView(r, c.height, c.channels);
    }
    if (r.chance(0.6)) {
      c.tokensB = randomTokenView(r, c.height, c.transposedB ? c.channels : c.outChannels);
    }
    c.mergedY = r.chance(0.5) || (!c.tokensA && !c.tokensB);
  }
}

/// Rows of 1-255 values (the sum 10%: 256-1500) on planes of 1-12 x 1-12 (10%: up to 3 x 200
/// rows, attention's score rows); sums with a multiplier for about the row's spread, zero points
/// and the output stage as conv.
OpCase reduceCase(Rng& r, CaseKind kind) {
  OpCase c;
  c.kind = kind;
  const bool longRows = kind == CaseKind::ReduceSum && r.chance(0.1);
  c.channels = longRows ? r.pick(256, 1500) : r.pick(1, 255);
  const bool many = r.chance(0.1);
  c.height = many ? r.pick(1, 3) : r.pick(1, 12);
  c.width = many ? r.pick(13, 200) : r.pick(1, 12);
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  if (kind == CaseKind::ReduceSum) {
    c.requant = multiplier(r, std::sqrt(static_cast<double>(c.channels)) * 74.0);
    outputStage(r, c);
  }
  return c;
}

/// Softmax, LayerNorm and RMSNorm rows: lengths 1-255 (10%: up to 1500, 2%: the 4095 limit) over
/// planes of 1-12 x 1-12 (10%: up to 3 x 200 rows, attention's score rows); input scales from 2^-8
/// to 1 (softmax tables from nearly flat to one-hot), LayerNorm output scales and epsilons across
/// their useful ranges, and clips that are mostly open.
OpCase normCase(Rng& r, CaseKind kind) {
  OpCase c;
  c.kind = kind;
  const std::int64_t length = r.pick(0, 49);
  c.channels = length == 0 ? 4095 : length < 6 ? r.pick(256, 1500) : r.pick(1, 255);
  const bool many = r.chance(0.1);
  c.height = many ? r.pick(1, 3) : r.pick(1, 12);
  c.width = many ? r.pick(13, 200) : r.pick(1, 12);
  if (c.channels > 1500) {
    c.height = 1;
    c.width = r.pick(1, 4);
  }
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  c.inputScale = std::ldexp(r.real(1.0, 2.0), static_cast<int>(r.pick(-8, -1)));
  if (isAffineNorm(kind)) {
    c.outputScale = std::ldexp(r.real(1.0, 2.0), static_cast<int>(r.pick(-7, -3)));
    c.epsilon = r.chance(0.2) ? 0.0 : std::ldexp(1.0, static_cast<int>(r.pick(-20, -4)));
    c.outputZeroPoint = zeroPoint(r);
  }
  if (r.chance(0.2)) {
    const auto a = static_cast<std::int32_t>(r.pick(-128, 127));
    const auto b = static_cast<std::int32_t>(r.pick(-128, 127));
    c.clipLo = std::min(a, b);
    c.clipHi = std::max(a, b);
  }
  return c;
}

OpCase concatCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Concat;
  const bool large = r.chance(0.05);
  c.height = large ? r.pick(16, 48) : r.pick(1, 12);
  c.width = large ? r.pick(16, 48) : r.pick(1, 12);
  c.channels = r.pick(1, large ? 96 : 40);
  const std::int64_t more = r.chance(0.6) ? 1 : r.pick(2, 3);
  for (std::int64_t i = 0; i < more; ++i) {
    c.concatChannels.push_back(r.pick(1, large ? 96 : 40));
  }
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  return c;
}

OpCase upsampleCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Upsample;
  const bool large = r.chance(0.05);
  c.height = large ? r.pick(16, 40) : r.pick(1, 10);
  c.width = large ? r.pick(16, 40) : r.pick(1, 10);
  c.channels = r.pick(1, large ? 96 : 40);
  c.factor = {r.pick(1, 4), r.chance(0.6) ? 0 : r.pick(1, 4)};
  if (c.factor[1] == 0) {
    c.factor[1] = c.factor[0];
  }
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  return c;
}

/// A linear resize along rows or columns: integer upsampling by 2-8 (the phases of a bilinear
/// decoder), any length from 1 to 48 (down, up and non-integer scales), or an integer
/// downscale; every coordinate transform of a linear Resize; requant near 1/64 (input and
/// output scales within 0.7-1.4 of each other, as calibration leaves them equal) or any
/// multiplier the output stage takes.
OpCase resizeCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Resize;
  const bool large = r.chance(0.05);
  c.height = large ? r.pick(16, 64) : r.pick(1, 12);
  c.width = large ? r.pick(16, 64) : r.pick(1, 12);
  c.channels = r.pick(1, large ? 96 : 48);
  c.resizeAxis = r.pick(1, 2);
  const std::int64_t from = c.resizeAxis == 1 ? c.height : c.width;
  const std::int64_t mode = r.pick(0, 9);
  if (mode < 5) {
    c.resizeLength = from * r.pick(2, 8);
  } else if (mode < 8) {
    c.resizeLength = r.pick(1, 48);
  } else {
    c.resizeLength = std::max<std::int64_t>(1, from / r.pick(2, 4));
  }
  constexpr std::array kTransforms{
      golden::CoordinateTransform::HalfPixel, golden::CoordinateTransform::PytorchHalfPixel,
      golden::CoordinateTransform::AlignCorners, golden::CoordinateTransform::Asymmetric};
  c.transform = kTransforms[static_cast<std::size_t>(r.pick(0, 3))];
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  c.requant = r.chance(0.8) ? fromReal(r.real(0.7, 1.4) / 64.0) : multiplier(r, 64.0 * 74.0);
  outputStage(r, c);
  return c;
}

/// A data-movement plane: 1-12 x 1-12, 5% 16-48 x 16-48 (as concat).
bool movementPlane(Rng& r, OpCase& c) {
  const bool large = r.chance(0.05);
  c.height = large ? r.pick(16, 48) : r.pick(1, 12);
  c.width = large ? r.pick(16, 48) : r.pick(1, 12);
  return large;
}

OpCase sliceCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Slice;
  const bool large = movementPlane(r, c);
  c.channels = r.pick(2, large ? 192 : 80);
  const std::int64_t mode = r.pick(0, 19);
  if (mode < 10) {  // anywhere
    c.sliceChannels = r.pick(1, c.channels - 1);
    c.channelBegin = r.pick(0, c.channels - c.sliceChannels);
  } else if (mode < 15) {  // one part of an even split (a Split's output)
    const std::int64_t parts = r.pick(2, std::min<std::int64_t>(4, c.channels));
    c.channels = c.channels / parts * parts;
    c.sliceChannels = c.channels / parts;
    c.channelBegin = c.sliceChannels * r.pick(0, parts - 1);
  } else if (mode < 19) {  // a prefix or a suffix
    c.sliceChannels = r.pick(1, c.channels - 1);
    c.channelBegin = r.chance(0.5) ? 0 : c.channels - c.sliceChannels;
  } else {  // every channel: a plain copy
    c.sliceChannels = c.channels;
  }
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  return c;
}

/// The rows (or columns) a slice keeps of an axis: every one (25%), a phase of step 2 or 3 to
/// the end (25%), or anywhere at step 1-3, ending at the axis's end or before it (50%).
void sliceAxis(Rng& r, std::int64_t extent, std::int64_t& begin, std::int64_t& step,
               std::int64_t& count) {
  const std::int64_t mode = r.pick(0, 3);
  begin = 0;
  step = 1;
  if (mode == 0) {
    count = extent;
    return;
  }
  if (mode == 1) {
    step = r.pick(2, 3);
    begin = r.pick(0, std::min(step, extent) - 1);
    count = sliceCountToEnd(extent, begin, step);
    return;
  }
  step = r.pick(1, 3);
  begin = r.pick(0, extent - 1);
  const std::int64_t toEnd = sliceCountToEnd(extent, begin, step);
  count = r.chance(0.3) ? toEnd : r.pick(1, toEnd);
}

/// Draws the rows and columns of a slice on its plane: all of them (a channel slice, 35%), one
/// of the four phases of a Focus stem's 2x2 space-to-depth (20%), or rows and columns drawn
/// independently (45%).
void sliceWindow(Rng& r, OpCase& c) {
  const std::int64_t mode = r.pick(0, 19);
  c.rowBegin = c.colBegin = 0;
  c.rowStep = c.colStep = 1;
  c.sliceRows = c.height;
  c.sliceCols = c.width;
  if (mode < 7) {
    return;
  }
  if (mode < 11) {
    c.rowStep = c.colStep = 2;
    c.rowBegin = c.height > 1 ? r.pick(0, 1) : 0;
    c.colBegin = c.width > 1 ? r.pick(0, 1) : 0;
    c.sliceRows = sliceCountToEnd(c.height, c.rowBegin, 2);
    c.sliceCols = sliceCountToEnd(c.width, c.colBegin, 2);
    return;
  }
  sliceAxis(r, c.height, c.rowBegin, c.rowStep, c.sliceRows);
  sliceAxis(r, c.width, c.colBegin, c.colStep, c.sliceCols);
}

OpCase shuffleCase(Rng& r) {
  OpCase c;
  c.kind = CaseKind::Shuffle;
  const bool large = movementPlane(r, c);
  c.groups = r.chance(0.6) ? 2 : r.pick(3, 8);
  // Mostly two or more channels per group (what the compiler folds); sometimes one, where the
  // shuffle is the identity.
  const std::int64_t perGroup = r.chance(0.05) ? 1 : r.pick(2, large ? 48 : 20);
  c.channels = c.groups * perGroup;
  c.inputZeroPoint = zeroPoint(r);
  c.data = dataPattern(r);
  return c;
}

/// Rewrites a conv or pool case into one on a wide map: 600-2600 columns of 16-96 channels over
/// 1-4 rows (a padded row of 10-250 KB, past npu-s's 64 KiB input half from about 700 columns
/// of 96 channels, so codegen must cut it into tiles of rows x columns). Work stays bounded by
/// taking fewer output channels, then fewer input channels, never the width.
void toWideMap(Rng& r, OpCase& c) {
  const std::int64_t spanH = (c.kernel[0] - 1) * c.dilation[0] + 1;
  const std::int64_t spanW = (c.kernel[1] - 1) * c.dilation[1] + 1;
  c.height = std::max<std::int64_t>(std::max<std::int64_t>(1, spanH - c.pads[0] - c.pads[2]),
                                    r.pick(1, 4));
  c.width = std::max<std::int64_t>(spanW, r.pick(600, 2600));
  c.channels = r.pick(16, 96);
  if (c.kind == CaseKind::Conv) {
    const bool depthwise = r.chance(0.4);
    c.groups = depthwise ? c.channels : 1;
    c.outChannels = depthwise ? c.channels : r.pick(1, 16);
    while (caseWork(c) > kMaxConvWork && !depthwise && c.outChannels > 1) {
      c.outChannels = std::max<std::int64_t>(1, c.outChannels / 2);
    }
    while (caseWork(c) > kMaxConvWork && c.channels > 16) {
      c.channels = std::max<std::int64_t>(16, c.channels * 3 / 4);
      if (depthwise) {
        c.groups = c.outChannels = c.channels;
      }
    }
    return;
  }
  // Pools: at most eight times the other cases' work (they are 5% of the pools).
  while (caseWork(c) > 8 * kMaxElementWork && c.channels > 16) {
    c.channels = std::max<std::int64_t>(16, c.channels * 3 / 4);
  }
}

/// Pads and sizes a conv case around its (dilated) window: padding "same" (60%) or at random up to
/// the window's span, a map at least one window tall and wide plus up to `extra` rows and columns,
/// and output channels halved until the case's work is within kMaxConvWork.
void placeWindow(Rng& r, OpCase& c, std::int64_t extra) {
  const std::int64_t spanH = (c.kernel[0] - 1) * c.dilation[0] + 1;
  const std::int64_t spanW = (c.kernel[1] - 1) * c.dilation[1] + 1;
  const bool same = r.chance(0.6);
  c.pads = {same ? (spanH - 1) / 2 : r.pick(0, spanH), same ? (spanW - 1) / 2 : r.pick(0, spanW),
            same ? spanH / 2 : r.pick(0, spanH), same ? spanW / 2 : r.pick(0, spanW)};
  c.height = std::max<std::int64_t>(1, spanH - c.pads[0] - c.pads[2]) + r.pick(0, extra);
  c.width = std::max<std::int64_t>(1, spanW - c.pads[1] - c.pads[3]) + r.pick(0, extra);
  while (caseWork(c) > kMaxConvWork && c.outChannels > c.groups) {
    c.outChannels = std::max(c.groups, c.outChannels / 2 / c.groups * c.groups);
  }
}

/// Rewrites a conv case into one with a large dilation, 4-40 per axis (past the CONV field's
/// 15 in about half of them: codegen splits those into phases of dilation 1), on a 2-3 tap
/// kernel: a window spanning up to 81 pixels, padded "same" or at random up to its span (past
/// LOAD's 63 padding positions on the widest).
void toLargeDilation(Rng& r, OpCase& c) {
  for (int i = 0; i < 2; ++i) {
    c.kernel[i] = r.pick(2, 3);
    c.dilation[i] = r.chance(0.5) ? r.pick(4, 15) : r.pick(16, 40);
    c.stride[i] = r.pick(1, 2);
  }
  placeWindow(r, c, 24);
}

/// Rewrites a conv case into one with a large kernel: 16-31 taps on one axis or both (past the
/// CONV field's 15: codegen splits it into parts that accumulate), dilation 1-2, stride 1-3,
/// padding "same" or at random up to the window's span, few channels.
void toLargeKernel(Rng& r, OpCase& c) {
  const bool both = r.chance(0.6);
  const std::int64_t tall = r.chance(0.5) ? 0 : 1;
  for (int i = 0; i < 2; ++i) {
    c.kernel[i] = both || i == tall ? r.pick(16, 31) : r.pick(1, 7);
    c.dilation[i] = r.chance(0.7) ? 1 : 2;
    c.stride[i] = r.pick(1, 3);
  }
  placeWindow(r, c, 12);
  while (caseWork(c) > kMaxConvWork && c.groups == 1 && c.channels > 1) {
    c.channels = std::max<std::int64_t>(1, c.channels / 2);
  }
}

/// Rewrites `c` into a case whose size sits at an ISA field limit: around the largest channel,
/// row or column count of one tile (isa::limits::kTileExtent), which codegen must tile or refuse
/// with a layer error.
void toFieldLimit(Rng& r, OpCase& c) {
  const std::int64_t which = r.pick(0, 2);
  const std::int64_t big = r.pick(isa::limits::kTileExtent - 195, isa::limits::kTileExtent + 305);
  c.height = which == 1 ? big : 1;
  c.width = which == 2 ? big : 1;
  c.channels = which == 0 ? big : 1;
  c.kernel = {1, 1};
  c.stride = {1, 1};
  c.dilation = {1, 1};
  c.pads = {0, 0, 0, 0};
  c.groups = 1;
  c.outChannels = r.pick(1, 4);
  c.factor = {1, r.pick(1, 2)};
  if (c.kind == CaseKind::Concat) {
    c.concatChannels = {r.pick(1, 4)};
  }
  if (c.kind == CaseKind::Slice) {  // a few channels or nearly all of a wide input
    c.channels = which == 0 ? big : r.pick(2, 4);
    c.sliceChannels = r.chance(0.5) ? r.pick(1, c.channels - 1) : c.channels - r.pick(0, 1);
    c.channelBegin = r.pick(0, c.channels - c.sliceChannels);
    sliceWindow(r, c);  // of the long row or column: all of it, or strided
  }
  if (c.kind == CaseKind::Shuffle) {
    c.groups = r.pick(2, 8);
    c.channels = which == 0 ? big / c.groups * c.groups : c.groups * r.pick(1, 2);
  }
}

}  // namespace

CaseKind sweepKind(OpFamily family, std::uint64_t index) {
  switch (family) {
    case OpFamily::Conv:
      return CaseKind::Conv;
    case OpFamily::Eltwise:
      // Every other add is a sub (the adds and muls that stay draw what they drew before).
      return index % 4 == 2 ? CaseKind::Sub : index % 2 == 0 ? CaseKind::Add : CaseKind::Mul;
    case OpFamily::Pool: {
      constexpr std::array<CaseKind, 5> kCycle{CaseKind::MaxPool, CaseKind::AvgPool,
                                               CaseKind::MaxPool, CaseKind::AvgPool,
                                               CaseKind::GlobalAvgPool};
      return kCycle[index % kCycle.size()];
    }
    case OpFamily::Lut:
      return CaseKind::Lut;
    case OpFamily::Concat:
      return CaseKind::Concat;
    case OpFamily::Upsample:
      return CaseKind::Upsample;
    case OpFamily::Slice:
      return CaseKind::Slice;
    case OpFamily::Shuffle:
      return CaseKind::Shuffle;
    case OpFamily::MatMul:
      return CaseKind::MatMul;
    case OpFamily::Reduce:
      return index % 2 == 0 ? CaseKind::ReduceMax : CaseKind::ReduceSum;
    case OpFamily::Resize:
      return CaseKind::Resize;
    case OpFamily::Norm:
      break;
  }
  constexpr std::array kNorms{CaseKind::Softmax, CaseKind::LayerNorm, CaseKind::RmsNorm};
  return kNorms[index % kNorms.size()];
}

OpFamily sweepFamily(std::uint64_t index) {
  using F = OpFamily;
  constexpr std::array<F, 22> kCycle{
      F::Conv, F::Eltwise, F::Pool, F::Conv,    F::Lut,    F::Conv, F::Pool, F::Concat,
      F::Conv, F::Slice,   F::Conv, F::Eltwise, F::Pool,   F::Lut,  F::Conv, F::Upsample,
      F::Conv, F::Shuffle, F::Pool, F::Eltwise, F::Concat, F::Conv};
  return kCycle[index % kCycle.size()];
}

OpCase randomCase(CaseKind kind, std::uint64_t seed, const GeneratorOptions& options) {
  Rng r(seed, "configuration");
  OpCase c;
  switch (kind) {
    case CaseKind::Conv:
      c = convCase(r);
      break;
    case CaseKind::Add:
    case CaseKind::Sub:
      c = rescaledCase(r, kind);
      break;
    case CaseKind::Mul:
      c = mulCase(r);
      break;
    case CaseKind::MaxPool:
    case CaseKind::AvgPool:
    case CaseKind::GlobalAvgPool:
      c = poolCase(r, kind);
      break;
    case CaseKind::Lut:
      c = lutCase(r);
      break;
    case CaseKind::Concat:
      c = concatCase(r);
      break;
    case CaseKind::Upsample:
      c = upsampleCase(r);
      break;
    case CaseKind::Slice:
      c = sliceCase(r);
      break;
    case CaseKind::Shuffle:
      c = shuffleCase(r);
      break;
    case CaseKind::MatMul:
      c = matMulCase(r);
      break;
    case CaseKind::ReduceMax:
    case CaseKind::ReduceSum:
      c = reduceCase(r, kind);
      break;
    case CaseKind::Resize:
      c = resizeCase(r);
      break;
    case CaseKind::Softmax:
    case CaseKind::LayerNorm:
    case CaseKind::RmsNorm:
      c = normCase(r, kind);
      break;
  }
  if (kind == CaseKind::Add || kind == CaseKind::Sub || kind == CaseKind::Mul) {
    // A stream of its own, so the rest of an eltwise case is what it was before broadcasting.
    Rng broadcast(seed, "broadcast");
    c.perChannelB = broadcast.chance(kPerChannelBShare);
    if (c.perChannelB && broadcast.chance(0.15)) {  // wide per-channel rows, as in an SE block
      c.height = broadcast.pick(1, 16);
      c.width = broadcast.pick(1, 16);
      c.channels = broadcast.pick(49, 512);
    }
  }
  if (kind == CaseKind::Slice) {
    // A stream of its own, so a slice's channels and plane are what they were before slices
    // had rows and columns.
    Rng window(seed, "slice_window");
    sliceWindow(window, c);
  }
  // Streams of their own, so every other case is what earlier builds drew.
  Rng reach(seed, "wide_maps");
  if (kind == CaseKind::Conv || kind == CaseKind::MaxPool || kind == CaseKind::AvgPool) {
    if (reach.chance(kWideMapShare)) {
      toWideMap(reach, c);
    } else if (kind == CaseKind::Conv && reach.chance(kLargeDilationShare)) {
      toLargeDilation(reach, c);
    } else if (kind == CaseKind::Conv && reach.chance(kLargeKernelShare)) {
      toLargeKernel(reach, c);
    }
  }
  Rng limits(seed, "field_limits");
  // NORM's one field limit, the 4095-value row, is part of normCase's own draw.
  const bool fieldLimit = options.fieldLimits && limits.chance(kFieldLimitShare) &&
                          kind != CaseKind::Add && kind != CaseKind::Sub && kind != CaseKind::Mul &&
                          kind != CaseKind::Lut && kind != CaseKind::Softmax && !isAffineNorm(kind);
  if (fieldLimit) {
    toFieldLimit(limits, c);
  }
  Rng views(seed, "matmul_views");
  if (kind == CaseKind::MatMul && views.chance(kTokenRowsShare)) {
    toTokenRows(views, c, !fieldLimit);
  }
  c.seed = Rng::mix(seed ^ 0xDA7A5EEDULL);
  return normalizedCase(std::move(c));
}

}  // namespace npu::bench
