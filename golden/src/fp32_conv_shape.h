// The checked geometry of an fp32 conv, shared by the oneDNN path and the plain loops.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/fp32_conv.h"

namespace npu::golden::detail {

/// Every dimension of one conv2d, validated.
struct Fp32ConvShape {
  std::int64_t n = 0, inC = 0, inH = 0, inW = 0;
  std::int64_t outC = 0, groupInC = 0, kH = 0, kW = 0, group = 1;
  std::int64_t sH = 1, sW = 1, dH = 1, dW = 1;
  std::int64_t padT = 0, padL = 0, padB = 0, padR = 0;
  std::int64_t outH = 0, outW = 0;

  std::vector<std::int64_t> outputShape() const { return {n, outC, outH, outW}; }
};

/// The checks Conv and ConvTranspose share (ranks, kernel, group, strides, dilations, pads, bias
/// size); throws Error naming `op`.
void checkConvCommon(std::span<const std::int64_t> xShape, const FloatTensor& w,
                     std::span<const float> bias, std::int64_t outChannels, std::int64_t group,
                     const std::array<std::int64_t, 2>& strides,
                     const std::array<std::int64_t, 2>& dilations,
                     const std::array<std::int64_t, 4>& pads, const char* op);

/// Checks a conv2d the way fp32_conv.h documents it; throws Error naming "conv2d".
Fp32ConvShape checkConv2d(std::span<const std::int64_t> xShape, const FloatTensor& w,
                          std::span<const float> bias, const Conv2dParams& params);

}  // namespace npu::golden::detail
