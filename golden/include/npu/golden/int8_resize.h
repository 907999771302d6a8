// int8 linear (bilinear) resize along one axis: two taps per output with fixed-point weights,
// then the requant and output stage of a conv. docs/numerics.md, section "Linear resize".
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/fp32_resize.h"
#include "npu/golden/int8_tensor.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// The weight of a whole input element: tap weights are integers in units of 1/64, so every
/// weight (0..64) is an int8 and the fractions of integer upsampling by 2, 4, ..., 32 under
/// half_pixel (and by up to 64 under asymmetric) are exact.
inline constexpr std::int32_t kLinearWeightOne = 64;

/// One output position of a linear resize along an axis: it reads input positions i0 and i1
/// (i1 == i0 + 1, or i1 == i0 at the clamped ends) with weights w0 + w1 == kLinearWeightOne.
struct LinearTap {
  std::int64_t i0 = 0;
  std::int64_t i1 = 0;
  std::int32_t w0 = kLinearWeightOne;
  std::int32_t w1 = 0;

  friend bool operator==(const LinearTap&, const LinearTap&) = default;
};

/// The taps of every output position o in [0, outLength) of an axis of inLength elements:
/// f = clamp(sourceCoordinate(o, ...), 0, inLength - 1) in float (as resizeLinear),
/// i0 = floor(f), i1 = min(i0 + 1, inLength - 1), w1 = floor((f - i0) * 64 + 0.5), w0 = 64 - w1.
/// Throws Error for lengths below 1 or a non-positive scale.
std::vector<LinearTap> linearResizeTaps(std::int64_t inLength, std::int64_t outLength, float scale,
                                        CoordinateTransform transform);

/// Linear resize of NHWC `x` along `axis` (1 rows, 2 columns) to taps.size() positions.
struct ResizeLinearInt8Params {
  std::int64_t axis = 1;
  std::vector<LinearTap> taps;
  std::int32_t inputZeroPoint = 0;
  /// s_in / (64 * s_out); exactly 2^-6 when input and output share their scale.
  QuantizedMultiplier multiplier;
  OutputStage output;
};

/// y = finishOutput(requantize(w0 * (x[i0] - zp) + w1 * (x[i1] - zp), multiplier, rounding)),
/// per output position of the axis and every element of the other axes. Throws Error naming the
/// op on a bad axis, a tap outside the input or weights that do not sum to 64.
Int8Tensor resizeLinearAxisInt8(const Int8Tensor& x, const ResizeLinearInt8Params& params);

}  // namespace npu::golden
