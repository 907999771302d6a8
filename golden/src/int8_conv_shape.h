// The checked geometry of an int8 conv and its output stage, shared by the oneDNN path and the
// plain loops (docs/numerics.md, "Conv and fully connected").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/int8_conv.h"

namespace npu::golden::detail {

/// Every dimension of one conv2dInt8, validated.
struct Int8ConvShape {
  std::int64_t n = 0, inH = 0, inW = 0, inC = 0;
  std::int64_t outC = 0, kH = 0, kW = 0, groupC = 0, groups = 1;
  std::int64_t sH = 1, sW = 1, dH = 1, dW = 1;
  std::int64_t padT = 0, padL = 0, padB = 0, padR = 0;
  std::int64_t outH = 0, outW = 0;

  std::int64_t outPerGroup() const { return outC / groups; }
  /// Rows and columns of the zero-point padded input the outputs read: the padding the window
  /// needs, without rows or columns that no window reaches.
  std::int64_t paddedH() const { return (outH - 1) * sH + dH * (kH - 1) + 1; }
  std::int64_t paddedW() const { return (outW - 1) * sW + dW * (kW - 1) + 1; }
  /// Products summed into one accumulator.
  std::int64_t dotLength() const { return kH * kW * groupC; }
  std::vector<std::int64_t> outputShape() const { return {n, outH, outW, outC}; }
};

/// Checks x's shape, the OHWI weights and the parameters the way conv2dInt8 documents; throws
/// Error naming `op`.
Int8ConvShape checkConv2dInt8(std::span<const std::int64_t> xShape, const Int8Tensor& w,
                              const Conv2dInt8Params& p, const char* op);

/// The output stage of docs/numerics.md over NHWC accumulators (channel innermost): requant with
/// the channel's multiplier, zero point, clip, LUT.
Int8Tensor finishConv(std::span<const std::int32_t> acc, std::vector<std::int64_t> outputShape,
                      const Conv2dInt8Params& p);

}  // namespace npu::golden::detail
