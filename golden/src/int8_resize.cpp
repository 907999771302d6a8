// int8 linear resize along one axis: the tap table, then a gather of two rows (or columns) per
// output with the conv output stage.
#include "npu/golden/int8_resize.h"

#include <algorithm>
#include <cmath>

#include "npu/support/error.h"

namespace npu::golden {

std::vector<LinearTap> linearResizeTaps(std::int64_t inLength, std::int64_t outLength, float scale,
                                        CoordinateTransform transform) {
  if (inLength < 1 || outLength < 1 || !(scale > 0.0F)) {
    fail("linearResizeTaps: lengths {} -> {} and scale {} must be positive", inLength, outLength,
         scale);
  }
  std::vector<LinearTap> taps(static_cast<std::size_t>(outLength));
  const auto last = static_cast<float>(inLength - 1);
  for (std::int64_t o = 0; o < outLength; ++o) {
    const float f =
        std::clamp(sourceCoordinate(o, inLength, outLength, scale, transform), 0.0F, last);
    LinearTap& tap = taps[static_cast<std::size_t>(o)];
    tap.i0 = static_cast<std::int64_t>(std::floor(f));
    tap.i1 = std::min(tap.i0 + 1, inLength - 1);
    const float fraction = f - static_cast<float>(tap.i0);
    tap.w1 = static_cast<std::int32_t>(
        std::floor(fraction * static_cast<float>(kLinearWeightOne) + 0.5F));
    tap.w0 = kLinearWeightOne - tap.w1;
  }
  return taps;
}

Int8Tensor resizeLinearAxisInt8(const Int8Tensor& x, const ResizeLinearInt8Params& params) {
  checkConsistent(x, "resizeLinearAxisInt8");
  if (x.rank() != 4 || (params.axis != 1 && params.axis != 2)) {
    fail("resizeLinearAxisInt8: needs NHWC input and axis 1 or 2, got {} along {}",
         shapeString(x.shape), params.axis);
  }
  checkOutputStage(params.output, "resizeLinearAxisInt8");
  checkQuantizedMultiplier(params.multiplier, "resizeLinearAxisInt8");
  const auto axis = static_cast<std::size_t>(params.axis);
  const std::int64_t in = x.shape[axis];
  for (const LinearTap& tap : params.taps) {
    if (tap.i0 < 0 || tap.i0 >= in || tap.i1 < 0 || tap.i1 >= in ||
        tap.w0 + tap.w1 != kLinearWeightOne || tap.w0 < 0 || tap.w1 < 0) {
      fail(
          "resizeLinearAxisInt8: tap ({}, {}) x ({}, {}) is outside {} positions or does not "
          "sum to {}",
          tap.i0, tap.i1, tap.w0, tap.w1, in, kLinearWeightOne);
    }
  }
  std::vector<std::int64_t> shape = x.shape;
  shape[axis] = static_cast<std::int64_t>(params.taps.size());
  Int8Tensor y{shape, std::vector<std::int8_t>(
                          static_cast<std::size_t>(shape[0] * shape[1] * shape[2] * shape[3]))};
  // The tensor as [outer][axis][inner]: rows are [N][H][W * C], columns [N * H][W][C].
  const std::int64_t outer = params.axis == 1 ? x.shape[0] : x.shape[0] * x.shape[1];
  const std::int64_t inner = params.axis == 1 ? x.shape[2] * x.shape[3] : x.shape[3];
  const std::int64_t out = shape[axis];
  const std::int32_t zp = params.inputZeroPoint;
  for (std::int64_t a = 0; a < outer; ++a) {
    for (std::int64_t o = 0; o < out; ++o) {
      const LinearTap& tap = params.taps[static_cast<std::size_t>(o)];
      const std::int8_t* lo = &x.data[static_cast<std::size_t>((a * in + tap.i0) * inner)];
      const std::int8_t* hi = &x.data[static_cast<std::size_t>((a * in + tap.i1) * inner)];
      std::int8_t* dst = &y.data[static_cast<std::size_t>((a * out + o) * inner)];
      for (std::int64_t i = 0; i < inner; ++i) {
        const std::int32_t acc =
            tap.w0 * (std::int32_t{lo[i]} - zp) + tap.w1 * (std::int32_t{hi[i]} - zp);
        dst[i] =
            finishOutput(requantize(acc, params.multiplier, params.output.rounding), params.output);
      }
    }
  }
  return y;
}

}  // namespace npu::golden
