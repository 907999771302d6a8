// Depthwise output rows: 16 channels per 512-bit register (a masked load and store take the
// channels past the last whole block), each tap one sign-extending load, one vpmulld and one add
// into the pixel's sums, which stay in the register over all taps.
#include "npu/simulator/depthwise_kernels.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_features.h"

namespace npu::sim {
namespace {

/// The definition as loops over contiguous channels, which GCC vectorises for whatever target the
/// caller is compiled for (the portable and the AVX2 variants below).
[[gnu::always_inline]] inline void accumulateRowLoops(const DepthwiseRow& row,
                                                      const std::int32_t* weights,
                                                      std::int32_t* acc) {
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    std::int32_t* __restrict sums = acc + p * row.channels;
    if (row.initial != nullptr) {
      std::copy(row.initial, row.initial + row.channels, sums);
    }
    for (std::int64_t t = 0; t < row.taps; ++t) {
      const std::int8_t* __restrict x = row.input + p * row.pixelStride + row.tapOffset[t];
      const std::int32_t* __restrict w = weights + t * row.channels;
      for (std::int64_t c = 0; c < row.channels; ++c) {
        // Wraps like the hardware accumulator, defined in C++.
        sums[c] = static_cast<std::int32_t>(static_cast<std::uint32_t>(sums[c]) +
                                            static_cast<std::uint32_t>(std::int32_t{x[c]} * w[c]));
      }
    }
  }
}

void accumulateRowPortable(const DepthwiseRow& row, const std::int32_t* weights,
                           std::int32_t* acc) {
  accumulateRowLoops(row, weights, acc);
}

#if defined(__x86_64__)

[[gnu::target("avx2")]] void accumulateRowAvx2(const DepthwiseRow& row, const std::int32_t* weights,
                                               std::int32_t* acc) {
  accumulateRowLoops(row, weights, acc);
}

#endif

#if defined(__x86_64__)

#define NPU_AVX512 [[gnu::target("avx512f,avx512bw,avx512vl")]]

/// Channels [c, c + 16) masked by `mask` for P pixels from `first`.
template <int P>
NPU_AVX512 inline void pixelBlock512(const DepthwiseRow& row, std::int64_t first, std::int64_t c,
                                     __mmask16 mask, const std::int32_t* weights,
                                     std::int32_t* acc) {
  __m512i sums[P];
  const std::int8_t* x = row.input + first * row.pixelStride + c;
  std::int32_t* out = acc + first * row.channels + c;
  if (row.initial != nullptr) {
    const __m512i initial = _mm512_maskz_loadu_epi32(mask, row.initial + c);
    for (int p = 0; p < P; ++p) {
      sums[p] = initial;
    }
  } else {
    for (int p = 0; p < P; ++p) {
      sums[p] = _mm512_maskz_loadu_epi32(mask, out + p * row.channels);
    }
  }
  for (std::int64_t t = 0; t < row.taps; ++t) {
    const __m512i w = _mm512_maskz_loadu_epi32(mask, weights + t * row.channels + c);
    const std::int8_t* tap = x + row.tapOffset[t];
    for (int p = 0; p < P; ++p) {
      const __m512i v = _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(mask, tap + p * row.pixelStride));
      sums[p] = _mm512_add_epi32(sums[p], _mm512_mullo_epi32(v, w));
    }
  }
  for (int p = 0; p < P; ++p) {
    _mm512_mask_storeu_epi32(out + p * row.channels, mask, sums[p]);
  }
}

NPU_AVX512 void accumulateRow512(const DepthwiseRow& row, const std::int32_t* weights,
                                 std::int32_t* acc) {
  constexpr int kPixels = 4;  // independent sums per tap, to hide vpmulld's latency
  for (std::int64_t c = 0; c < row.channels; c += 16) {
    const std::int64_t left = row.channels - c;
    const __mmask16 mask =
        left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1U << left) - 1);
    std::int64_t p = 0;
    for (; p + kPixels <= row.pixels; p += kPixels) {
      pixelBlock512<kPixels>(row, p, c, mask, weights, acc);
    }
    for (; p < row.pixels; ++p) {
      pixelBlock512<1>(row, p, c, mask, weights, acc);
    }
  }
}

#undef NPU_AVX512

#endif  // __x86_64__

}  // namespace

std::vector<DepthwiseKernels> supportedDepthwiseKernels() {
  std::vector<DepthwiseKernels> kernels;
#if defined(__x86_64__)
  if (cpuFeatures().avx512) {
    kernels.push_back({"avx512", accumulateRow512});
  }
  if (cpuFeatures().avx2) {
    kernels.push_back({"avx2", accumulateRowAvx2});
  }
#endif
  kernels.push_back({"portable", accumulateRowPortable});
  return kernels;
}

const DepthwiseKernels& depthwiseKernels() {
  static const DepthwiseKernels chosen = supportedDepthwiseKernels().front();
  return chosen;
}

}  // namespace npu::sim
