// The u8 x s8 dot products of the dense CONV datapath: blocks of output pixels against blocks of
// output channels, each inner step one vpdpbusd (64 multiply-accumulates) on CPUs with AVX-512
// VNNI or AVX-VNNI. The activations come in offset by +128 (x ^ 0x80, so they are unsigned); the
// datapath subtracts (128 + zero point) * (sum of the channel's weights) afterwards, which gives
// the definition's sum of (x - zero point) * w exactly, modulo 2^32 like the accumulator.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::sim {

struct Int8DotKernels {
  /// "avx512-vnni", "avx-vnni" or "portable".
  std::string_view isa;
  /// For every pixel p < pixels and channel c < channels:
  ///   out[p * channels + c] = sum over k < length of patches[p * length + k] * weights[c * length
  ///   + k],
  /// accumulated in int32 with wrap-around (as the MAC array's accumulator).
  void (*dotBlock)(const std::uint8_t* patches, std::int64_t pixels, const std::int8_t* weights,
                   std::int64_t channels, std::int64_t length, std::int32_t* out);
};

/// The variants this CPU can run, widest first; "portable" (the definition, plain loops) last.
std::vector<Int8DotKernels> supportedInt8DotKernels();

/// The widest variant this CPU runs; its isa is "portable" when the CPU has no VNNI, where the
/// datapath keeps its int16 kernels (AVX2's vpmaddubsw saturates, so it cannot do u8 x s8 sums).
const Int8DotKernels& int8DotKernels();

}  // namespace npu::sim
