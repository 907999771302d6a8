// int8 softmax, LayerNorm and RMSNorm along the last axis, integer-only (docs/numerics.md, "Softmax
// and LayerNorm over rows").
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "npu/golden/int8_tensor.h"

namespace npu::golden {

/// The fixed output quantization of an int8 softmax: scale 1/256, zero point -128.
inline constexpr double kSoftmaxOutputScale = 1.0 / 256.0;
inline constexpr std::int32_t kSoftmaxOutputZeroPoint = -128;

/// The exp table of a softmax whose input has scale `inputScale`:
/// T[k] = round(2^15 * exp(-k * inputScale)), k = 0..255.
std::array<std::uint16_t, 256> softmaxExpTable(double inputScale);

struct SoftmaxInt8Params {
  std::array<std::uint16_t, 256> expTable{};
  std::int32_t outputZeroPoint = kSoftmaxOutputZeroPoint;
  std::int32_t clipLo = -128;
  std::int32_t clipHi = 127;
};

/// Softmax of every row along the last axis (length 1..4095); the shape is kept.
Int8Tensor softmaxRowsInt8(const Int8Tensor& x, const SoftmaxInt8Params& params);

/// One position's output affine of a LayerNorm: y = requant(t, multiplier, shift) + bias, with a
/// signed multiplier (a negative gamma) and single rounding.
struct LayerNormPosition {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
  std::int32_t bias = 0;
};

struct LayerNormInt8Params {
  std::int32_t inputZeroPoint = 0;
  /// round(L^3 * eps / s_x^2), at most 2^62 - 1.
  std::uint64_t epsilonTerm = 0;
  /// One per position of the last axis.
  std::vector<LayerNormPosition> positions;
  std::int32_t outputZeroPoint = 0;
  std::int32_t clipLo = -128;
  std::int32_t clipHi = 127;
};

/// The epsilon term of a LayerNorm over `length` values of scale `inputScale`.
std::uint64_t layerNormEpsilonTerm(std::int64_t length, double epsilon, double inputScale);

/// The output affine of one position: gamma * sqrt(L) / (s_y * 2^24) as a signed multiplier and
/// round(beta / s_y) as bias.
LayerNormPosition layerNormPosition(double gamma, double beta, std::int64_t length,
                                    double outputScale);

/// LayerNorm of every row along the last axis (length 1..4095, params.positions.size() of it).
Int8Tensor layerNormRowsInt8(const Int8Tensor& x, const LayerNormInt8Params& params);

/// RMSNorm of every row along the last axis: LayerNorm's formula without the mean, d[j] = L * v[j]
/// (docs/numerics.md, "RMSNorm over rows"). The same parameters: the epsilon term of
/// layerNormEpsilonTerm and the position records of layerNormPosition (beta usually 0).
Int8Tensor rmsNormRowsInt8(const Int8Tensor& x, const LayerNormInt8Params& params);

}  // namespace npu::golden
