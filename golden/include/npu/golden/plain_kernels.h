// The plain loops of docs/numerics.md for the ops whose fast path runs on oneDNN: the reference
// the tests hold conv2dInt8, conv2dInt8Accumulators and conv2d to.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_conv.h"
#include "npu/golden/int8_conv.h"

namespace npu::golden::plain {

/// conv2dInt8Accumulators by the formula: acc = bias[c] + sum (x - zp_x) * w in wrapping int32.
std::vector<std::int32_t> conv2dInt8Accumulators(const Int8Tensor& x, const Int8Tensor& w,
                                                 const Conv2dInt8Params& params);

/// conv2dInt8 by the formula: the accumulators above, then the output stage.
Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& params);

/// conv2d by direct loops: each output is bias, then + x * w over input channel, kernel row and
/// kernel column in that order, one rounding per operation (no fused multiply-add).
FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params);

}  // namespace npu::golden::plain
