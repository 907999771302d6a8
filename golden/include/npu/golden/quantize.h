// Float <-> int8 conversion with the one rounding rule of docs/numerics.md.
#pragma once

#include <cstdint>
#include <span>

#include "npu/golden/float_tensor.h"
#include "npu/golden/int8_tensor.h"

namespace npu::golden {

/// Per-tensor affine quantization: real = (q - zeroPoint) * scale.
struct QuantParams {
  float scale = 1.0F;
  std::int32_t zeroPoint = 0;
};

/// Throws Error naming `what` unless scale is positive and finite and zeroPoint in [-128, 127].
void checkQuantParams(const QuantParams& params, const char* what);

/// clamp(round_half_away_from_zero(x / scale) + zeroPoint, lo, hi), the division in double;
/// NaN quantizes to the zero point.
std::int32_t quantizeValue(float x, const QuantParams& params, std::int32_t lo = -128,
                           std::int32_t hi = 127);

/// quantizeValue (lo -128, hi 127) of every element of `x` into `out` (the shorter's length),
/// vectorised; the same bits as the scalar function.
void quantizeValues(std::span<const float> x, const QuantParams& params,
                    std::span<std::int8_t> out);

/// (q - zeroPoint) * scale, in float.
float dequantizeValue(std::int32_t q, const QuantParams& params);

/// quantizeValue over a tensor; the shape is kept (no layout change).
Int8Tensor quantize(const FloatTensor& x, const QuantParams& params);

/// dequantizeValue over a tensor; the shape is kept (no layout change).
FloatTensor dequantize(const Int8Tensor& q, const QuantParams& params);

}  // namespace npu::golden
