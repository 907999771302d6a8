// The single-rounding requant of an output row (docs/numerics.md, requantSingle, then the output
// zero point and the clip), per channel multiplier and shift, compiled for AVX-512 and portably;
// the widest variant the CPU runs is picked once. A depthwise conv does 9 multiply-accumulates
// per output, so this stage costs as much as its MACs unless it is vectorised by hand.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::sim {

/// `pixels` pixels of `channels` int32 sums, `stride` apart in `acc`, to `channels` bytes each in
/// `out`.
struct RequantRow {
  const std::int32_t* acc = nullptr;
  std::int64_t stride = 0;
  std::int64_t pixels = 0;
  std::int64_t channels = 0;
  const std::int32_t* multiplier = nullptr;  // per channel
  const std::int32_t* rightShift = nullptr;  // per channel: t = 31 - shift, in [1, 62]
  std::int64_t outZp = 0;
  std::int64_t clipLo = 0;
  std::int64_t clipHi = 0;  // >= clipLo
  std::int8_t* out = nullptr;
};

struct RequantKernels {
  /// "avx512", "avx2" or "portable".
  std::string_view isa;
  /// out[p * channels + c] = int8 (two's complement truncation) of
  ///   clamp(clamp((acc[p * stride + c] * multiplier[c] + 2^(t-1)) >> t, INT32_MIN, INT32_MAX)
  ///         + outZp, clipLo, clipHi),
  /// with t = rightShift[c], in 64-bit arithmetic (>> rounds towards minus infinity).
  void (*requantRow)(const RequantRow& row);
};

/// The variants this CPU can run, widest first; "portable" (the definition, plain loops) last.
std::vector<RequantKernels> supportedRequantKernels();

/// The variant the datapath uses: the first of supportedRequantKernels().
const RequantKernels& requantKernels();

}  // namespace npu::sim
