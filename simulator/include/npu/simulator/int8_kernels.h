// The u8 x s8 multiply-accumulates of the dense CONV datapath on CPUs with AVX-512 VNNI or
// AVX-VNNI: one output row at a time, output channels in the vector lanes. The weights are packed
// once per instruction into vpdpbusd's layout (4 consecutive input channels of 16 output channels
// per 64 bytes), each step broadcasts 4 input bytes of one pixel's window straight out of the
// input (no gathered patch) and does 64 multiply-accumulates per vpdpbusd. The activations come in
// offset by +128 (x ^ 0x80, so they are unsigned); the datapath subtracts (128 + zero point) x
// (sum of the channel's weights) afterwards, which gives the definition's sum of
// (x - zero point) x w exactly, modulo 2^32 like the accumulator.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::sim {

/// Output channels per packed block: one 512-bit vector of int32 sums.
inline constexpr std::int64_t kInt8ChannelBlock = 16;

/// The windows of one output row in the unsigned input, whose pixels are `groups` x 4 bytes
/// apart (the channels padded to a multiple of 4).
struct Int8WindowRow {
  const std::uint8_t* input = nullptr;  // window of the row's first pixel, tap 0
  std::int64_t pixels = 0;
  std::int64_t pixelStride = 0;             // bytes from one pixel's window to the next
  const std::int64_t* tapOffset = nullptr;  // byte offset of each tap within a window
  std::int64_t taps = 0;
  std::int64_t groups = 0;  // 4-byte channel groups per tap
};

/// Weights as vpdpbusd takes them: for k < taps x groups, channel c < channels (a multiple of
/// kInt8ChannelBlock), byte b < 4: bytes[(k * channels + c) * 4 + b]. Padding is zero.
struct Int8PackedWeights {
  std::vector<std::int8_t> bytes;
  std::int64_t channels = 0;
};

struct Int8DotKernels {
  /// "avx512-vnni", "avx-vnni" or "portable".
  std::string_view isa;
  /// For every pixel p < row.pixels and channel c < weights.channels:
  ///   out[p * weights.channels + c] = sum over tap t, group g, byte b of
  ///     row.input[p * row.pixelStride + row.tapOffset[t] + 4 g + b]
  ///       * weights.bytes[((t * row.groups + g) * weights.channels + c) * 4 + b],
  /// accumulated in int32 with wrap-around (as the MAC array's accumulator).
  void (*dotRow)(const Int8WindowRow& row, const Int8PackedWeights& weights, std::int32_t* out);
};

/// The variants this CPU can run, widest first; "portable" (the definition, plain loops) last.
std::vector<Int8DotKernels> supportedInt8DotKernels();

/// The widest variant this CPU runs; its isa is "portable" when the CPU has no VNNI, where the
/// datapath keeps its int16 kernels (AVX2's vpmaddubsw saturates, so it cannot do u8 x s8 sums).
const Int8DotKernels& int8DotKernels();

}  // namespace npu::sim
