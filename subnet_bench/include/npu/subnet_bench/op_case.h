// One operator-verification case: a single quantized op described by plain integers (geometry,
// zero points, requant multipliers, clip, rounding) plus a seed for its data, and the one-op
// QuantizedGraph and inputs it stands for.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/compiler/target/npu_op.h"
#include "npu/golden/int8_ops.h"
#include "npu/subnet_bench/matmul_views.h"

namespace npu::bench {

/// Sizes, counts and offsets above this are rejected: a repro file is a small thing, and this
/// keeps every product of sizes inside int64.
inline constexpr std::int64_t kMaxCaseSize = 65535;

/// The op a case checks: an NPU op of the op registry (compiler/target/npu_ops.def), which
/// also names its family and its repro-file name.
using CaseKind = compiler::NpuOp;

/// The groups `npu opcheck OP` sweeps (the registry's NPU_FAMILY rows): conv, eltwise (add,
/// mul), pool (max, average, global), lut, concat, upsample, slice (a channel slice, possibly of
/// strided rows and columns), shuffle (a channel shuffle), matmul (two activations, batched over
/// heads), reduce (row max and row sum along the last axis), resize (linear, along rows or
/// columns) and norm (softmax, LayerNorm and RMSNorm along the last axis: the NORM instruction).
using OpFamily = compiler::NpuOpFamily;

/// LayerNorm and RMSNorm: the NORMs with an epsilon, an output scale and per-position records.
inline bool isAffineNorm(CaseKind kind) {
  return kind == CaseKind::LayerNorm || kind == CaseKind::RmsNorm;
}

/// How input (and conv weight) values are drawn from the case's seed.
enum class DataPattern : std::uint8_t {
  Uniform,        ///< every int8 value equally likely
  Extremes,       ///< only -128 and 127 (weights -127/127, or -128 with full-range weights)
  NearZeroPoint,  ///< within 3 of the input zero point
};

/// A fixed-point multiplier as the parameter records hold it: m = multiplier * 2^(shift - 31).
struct Requant {
  std::int32_t multiplier = 1 << 30;
  std::int32_t shift = 0;

  friend bool operator==(const Requant&, const Requant&) = default;
};

/// Everything that defines one case. Fields a kind does not use keep their defaults (and are
/// neither written to nor accepted in its repro file).
struct OpCase {
  CaseKind kind = CaseKind::Conv;
  /// Seeds the data: inputs, weights, bias, LUT tables and per-channel multipliers.
  std::uint64_t seed = 0;
  DataPattern data = DataPattern::Uniform;
  /// The (first) input, NHWC [1, height, width, channels].
  std::int64_t height = 1;
  std::int64_t width = 1;
  std::int64_t channels = 1;
  std::int32_t inputZeroPoint = 0;
  /// Add and mul: the second input's zero point.
  std::int32_t inputZeroPointB = 0;
  /// Add and mul: the second input is one value per channel, [1, 1, 1, channels], broadcast over
  /// the first input's plane (a squeeze-excitation scale); otherwise it has the first's shape.
  bool perChannelB = false;
  /// Concat: channel counts of the inputs after the first (same height and width).
  std::vector<std::int64_t> concatChannels;

  /// Slice: the output is the input's channels [channelBegin, channelBegin + sliceChannels) of
  /// the sliceRows rows rowBegin, rowBegin + rowStep, ... and the sliceCols columns colBegin,
  /// colBegin + colStep, ... (a channel slice keeps every row and column; a Focus stem's four
  /// phases have steps 2 and begins 0 or 1). The window ends inside the input, not necessarily at
  /// its last row or column.
  std::int64_t channelBegin = 0;
  std::int64_t sliceChannels = 1;
  std::int64_t rowBegin = 0;
  std::int64_t rowStep = 1;
  std::int64_t sliceRows = 1;
  std::int64_t colBegin = 0;
  std::int64_t colStep = 1;
  std::int64_t sliceCols = 1;

  /// Conv: output channels, kernel/stride/dilation (vertical, horizontal), pads (top, left,
  /// bottom, right) and groups. Pools use kernel, stride and pads. Shuffle uses groups: output
  /// channel c * groups + g is input channel g * channels / groups + c.
  std::int64_t outChannels = 1;
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 2> dilation{1, 1};
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  std::int64_t groups = 1;
  /// Conv: bias values are drawn from [-biasRange, biasRange].
  std::int64_t biasRange = 0;
  /// Conv: weights in [-128, 127] instead of the compiler's symmetric [-127, 127].
  bool fullRangeWeights = false;
  /// Conv: when set, every output channel gets its own multiplier drawn from the seed (mantissa
  /// anywhere in [2^30, 2^31 - 1], shift within 2 of `requant.shift`); otherwise all share
  /// `requant`.
  bool perChannel = false;

  /// Output stage of conv, add and mul.
  Requant requant;
  std::int32_t outputZeroPoint = 0;
  std::int32_t clipLo = -128;
  std::int32_t clipHi = 127;
  /// A fused LUT (table drawn from the seed) after the clip.
  bool fusedLut = false;
  golden::Rounding rounding = golden::Rounding::Single;
  /// Add: the per-input rescales and the left shift applied before them.
  Requant requantA;
  Requant requantB;
  std::int32_t leftShift = 20;

  /// Upsample: vertical and horizontal factors.
  std::array<std::int64_t, 2> factor{2, 2};

  /// Resize (linear, one axis: each half of a bilinear Resize): the axis (1 rows, 2 columns),
  /// its output length and the coordinate transform; the taps are golden::linearResizeTaps'.
  std::int64_t resizeAxis = 1;
  std::int64_t resizeLength = 1;
  golden::CoordinateTransform transform = golden::CoordinateTransform::HalfPixel;

  /// MatMul: height heads of [width (M), channels (K)] x [K, outChannels (N)]. a is planes
  /// [1, heads, M, K], b [1, heads, K, N] or, when transposedB, [1, heads, N, K]; b is symmetric
  /// (zero point 0). When producedB, b is what a LUT op of the same program wrote (the STORE ->
  /// LOAD-as-weights path attention takes), else a graph input.
  bool transposedB = false;
  bool producedB = false;
  /// MatMul: a (rows M) and b (rows K, or N when transposedB) read in place from token rows
  /// instead of planes, as attention's q, k and v from a fused qkv tensor; and y written into
  /// merged token rows [1, M, 1, heads * N], head h at columns h * N (else planes
  /// [1, heads, M, N]). The op then carries their HeadMatMul geometry (matMulCaseGeometry).
  std::optional<TokenView> tokensA;
  std::optional<TokenView> tokensB;
  bool mergedY = false;
  /// MatMul: b is read from a's tensor (self-attention's q and k from one fused qkv tensor:
  /// both in token rows of one width, as many rows of b as of a); when producedB, that tensor
  /// is the one the LUT op wrote.
  bool bFromA = false;

  /// Softmax, LayerNorm and RMSNorm (rows of `channels` values): the input scale, which sets
  /// softmax's exp table and the norms' epsilon term. LayerNorm and RMSNorm: the output scale and
  /// epsilon; gamma and beta come from the seed. A softmax's output zero point is -128 (scale
  /// 1/256); all take `clipLo`/`clipHi`, the norms `outputZeroPoint` too.
  double inputScale = 0.05;
  double outputScale = 0.05;
  double epsilon = 1e-5;

  friend bool operator==(const OpCase&, const OpCase&) = default;
};

/// Lower-case names used on the command line and in repro files: the registry's op names
/// (compiler::npuOpName: "conv", "add", "mul", "sub", "maxpool", ...).
std::string_view caseKindName(CaseKind kind);
std::optional<CaseKind> parseCaseKind(std::string_view name);

/// "conv", "eltwise", "pool", "lut", "concat", "upsample", "slice", "shuffle", "matmul",
/// "reduce", "resize", "norm".
std::string_view opFamilyName(OpFamily family);
std::optional<OpFamily> parseOpFamily(std::string_view name);

/// The family an op kind belongs to.
OpFamily familyOf(CaseKind kind);

/// "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn"
/// (ONNX's coordinate_transformation_mode values).
std::string_view transformName(golden::CoordinateTransform transform);
std::optional<golden::CoordinateTransform> parseTransform(std::string_view name);

/// "uniform", "extremes", "near_zero_point".
std::string_view dataPatternName(DataPattern pattern);
std::optional<DataPattern> parseDataPattern(std::string_view name);

/// Throws npu::Error ("case: ...") when the case does not describe a well-formed op: a
/// non-positive size, an output smaller than 1x1, groups that do not divide the channels, a
/// slice outside the input's channels, rows or columns, a zero point, clip bound or multiplier
/// out of its range.
void validateCase(const OpCase& opCase);

/// The case with every field its kind does not use reset to the default, so two cases that
/// describe the same op compare equal (and a repro file, which holds only the used keys,
/// reads back to the same case).
OpCase normalizedCase(OpCase opCase);

/// The entries a slice from `begin` every `step` keeps of an axis of `extent` when it runs to
/// the axis's end; 1 when `begin` or `step` is out of range (which validateCase rejects).
std::int64_t sliceCountToEnd(std::int64_t extent, std::int64_t begin, std::int64_t step);

/// The output shape [1, H, W, C] of a valid case.
std::vector<std::int64_t> caseOutputShape(const OpCase& opCase);

/// Multiply-accumulates (conv) or output elements (other ops): a rough cost of running the case.
std::int64_t caseWork(const OpCase& opCase);

/// A one-op graph and the data to feed it.
struct CaseGraph {
  compiler::QuantizedGraph graph;
  std::vector<golden::Int8Tensor> inputs;
};

/// Builds the one-op graph of a (validated) case; the op is named after its kind.
CaseGraph buildCaseGraph(const OpCase& opCase);

/// One line describing the case's shape and parameters, for progress and failure reports.
std::string describeCase(const OpCase& opCase);

}  // namespace npu::bench
