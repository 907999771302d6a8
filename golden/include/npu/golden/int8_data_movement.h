// int8 byte-moving ops (input and output share scale and zero point): concat, slice, nearest
// resize, constant pad, reshape, transpose.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "npu/golden/fp32_resize.h"
#include "npu/golden/int8_tensor.h"

namespace npu::golden {

/// Concatenation along `axis` (NHWC channel concat is axis 3); other dimensions must match.
Int8Tensor concatInt8(const std::vector<std::reference_wrapper<const Int8Tensor>>& inputs,
                      std::int64_t axis);

/// `count` entries of `axis` from `begin`, `step` apart (NHWC channel slice is axis 3): a Slice
/// with a positive step, or one output of a Split. Throws Error when the range leaves the axis.
Int8Tensor sliceInt8(const Int8Tensor& x, std::int64_t axis, std::int64_t begin, std::int64_t count,
                     std::int64_t step = 1);

/// The channel shuffle of NHWC `x` in `groups` groups: channels viewed as [groups, C / groups],
/// transposed to [C / groups, groups] (ShuffleNet's reshape-transpose-reshape).
Int8Tensor shuffleChannelsInt8(const Int8Tensor& x, std::int64_t groups);

/// Nearest resize with the same index rule as resizeNearest (any rank; for NHWC give scales or
/// sizes for all four axes). Integer upsampling with Asymmetric + Floor repeats each pixel.
Int8Tensor resizeNearestInt8(const Int8Tensor& x, const ResizeParams& params);

/// Integer nearest upsample of NHWC by (factorH, factorW): out[n, y, x, c] = in[n, y/fH, x/fW, c].
Int8Tensor upsampleNearestInt8(const Int8Tensor& x, std::int64_t factorH, std::int64_t factorW);

/// Constant pad with `value` (the zero point); pads in ONNX order [x1_begin, ..., x1_end, ...].
Int8Tensor padInt8(const Int8Tensor& x, std::span<const std::int64_t> pads, std::int8_t value);

/// Reshape with ONNX Reshape rules (0 copies, -1 infers); the bytes are unchanged.
Int8Tensor reshapeInt8(const Int8Tensor& x, std::span<const std::int64_t> shape);

/// Transpose with ONNX rules (e.g. perm {0, 2, 3, 1} turns NCHW into NHWC).
Int8Tensor transposeInt8(const Int8Tensor& x, std::span<const std::int64_t> perm);

}  // namespace npu::golden
