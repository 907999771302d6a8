// int8 max, average and global average pooling on NHWC tensors; input and output share scale and
// zero point.
#pragma once

#include <array>
#include <cstdint>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// Window geometry of an int8 pool. Ceil mode is expressed by the caller as extra bottom/right
/// padding.
struct PoolInt8Params {
  /// Window height, width.
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> strides{1, 1};
  /// Top, left, bottom, right.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
};

/// Max over the window of x NHWC; padding reads -128, so it only wins when the whole window is
/// padding. Output [N, oH, oW, C], oH = (H + top + bottom - kH) / sH + 1.
Int8Tensor maxPoolInt8(const Int8Tensor& x, const PoolInt8Params& params);

/// The fixed-point reciprocal of the window: quantizeMultiplier(1 / (kH * kW)).
QuantizedMultiplier averagePoolMultiplier(std::int64_t kernelH, std::int64_t kernelW);

/// Average pool: sum of the raw int8 values of all kH*kW window positions (padding reads
/// `zeroPoint`, count_include_pad style), y = clamp(requantizeSingle(sum,
/// averagePoolMultiplier(kH, kW)), -128, 127). Always single rounding.
Int8Tensor averagePoolInt8(const Int8Tensor& x, const PoolInt8Params& params,
                           std::int32_t zeroPoint);

/// Average pool with one window covering the whole H x W plane: NHWC -> [N, 1, 1, C].
Int8Tensor globalAveragePoolInt8(const Int8Tensor& x);

}  // namespace npu::golden
