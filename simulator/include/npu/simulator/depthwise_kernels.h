// The multiply-accumulates of a depthwise CONV (one filter per channel, channels last), one
// output row at a time: for each pixel, a block of channels keeps its int32 sums in a register
// while every tap adds its products, with the int8 input read where it lies (no widened copy).
// The zero point is not subtracted here: the datapath takes zp x (sum of a channel's taps) off
// once per channel, which gives the definition's sum of (x - zp) x w exactly modulo 2^32.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::sim {

/// The windows of one depthwise output row in the int8 input, whose pixels are `channels` bytes
/// apart.
struct DepthwiseRow {
  const std::int8_t* input = nullptr;  // window of the row's first pixel, tap 0
  std::int64_t pixels = 0;
  std::int64_t pixelStride = 0;             // bytes from one pixel's window to the next
  const std::int64_t* tapOffset = nullptr;  // byte offset of each tap within a window
  std::int64_t taps = 0;
  std::int64_t channels = 0;
  /// When not null, the sums start from initial[c] (per channel) instead of what acc holds.
  const std::int32_t* initial = nullptr;
};

struct DepthwiseKernels {
  /// "avx512", "avx2" or "portable".
  std::string_view isa;
  /// For every pixel p < row.pixels and channel c < row.channels:
  ///   acc[p * row.channels + c] = (row.initial ? row.initial[c] : acc[p * row.channels + c])
  ///     + sum over tap t of
  ///     row.input[p * row.pixelStride + row.tapOffset[t] + c] * weights[t * row.channels + c],
  /// in int32 with wrap-around (as the MAC array's accumulator).
  void (*accumulateRow)(const DepthwiseRow& row, const std::int32_t* weights, std::int32_t* acc);
};

/// The variants this CPU can run, widest first; "portable" (the definition, plain loops) last.
std::vector<DepthwiseKernels> supportedDepthwiseKernels();

/// The variant the datapath uses: the first of supportedDepthwiseKernels().
const DepthwiseKernels& depthwiseKernels();

}  // namespace npu::sim
