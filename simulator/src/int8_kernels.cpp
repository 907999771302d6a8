// u8 x s8 dot-product blocks: 4 pixels x 4 channels of accumulators per pass, so each 64-byte
// step loads 4 patch vectors and 4 weight vectors for 16 vpdpbusd; a masked load takes the tail
// (the bytes past `length` load as zero and add nothing).
#include "npu/simulator/int8_kernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

// GCC 12's AVX-512 extract/cast intrinsics start from _mm512_undefined_*, which its
// -Wuninitialized reports at every use (GCC bug 105593): nothing here reads an undefined lane.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace npu::sim {
namespace {

void dotBlockPortable(const std::uint8_t* patches, std::int64_t pixels, const std::int8_t* weights,
                      std::int64_t channels, std::int64_t length, std::int32_t* out) {
  for (std::int64_t p = 0; p < pixels; ++p) {
    for (std::int64_t c = 0; c < channels; ++c) {
      std::uint32_t sum = 0;  // wraps like the hardware accumulator, defined in C++
      for (std::int64_t k = 0; k < length; ++k) {
        sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(patches[p * length + k]) *
                                          static_cast<std::int32_t>(weights[c * length + k]));
      }
      out[p * channels + c] = static_cast<std::int32_t>(sum);
    }
  }
}

#if defined(__x86_64__)

#define NPU_VNNI512 [[gnu::target("avx512f,avx512bw,avx512vl,avx512vnni")]]

/// P pixels x C channels of one block, all of `length`.
template <int P, int C>
NPU_VNNI512 inline void microBlock512(const std::uint8_t* patches, const std::int8_t* weights,
                                      std::int64_t length, std::int32_t* out,
                                      std::int64_t channels) {
  __m512i acc[P][C];
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) {
      acc[p][c] = _mm512_setzero_si512();
    }
  }
  for (std::int64_t k = 0; k < length; k += 64) {
    const std::int64_t left = length - k;
    const __mmask64 mask = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    __m512i x[P];
    for (int p = 0; p < P; ++p) {
      x[p] = _mm512_maskz_loadu_epi8(mask, patches + p * length + k);
    }
    for (int c = 0; c < C; ++c) {
      const __m512i w = _mm512_maskz_loadu_epi8(mask, weights + c * length + k);
      for (int p = 0; p < P; ++p) {
        acc[p][c] = _mm512_dpbusd_epi32(acc[p][c], x[p], w);
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    if constexpr (C == 4) {
      // Four channels' 16 lanes folded to 4 x 4 lanes, then horizontal adds (which wrap) to one
      // vector holding the four sums.
      __m128i folded[4];
      for (int c = 0; c < 4; ++c) {
        const __m256i half = _mm256_add_epi32(_mm512_castsi512_si256(acc[p][c]),
                                              _mm512_extracti64x4_epi64(acc[p][c], 1));
        folded[c] = _mm_add_epi32(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
      }
      const __m128i sums = _mm_hadd_epi32(_mm_hadd_epi32(folded[0], folded[1]),
                                          _mm_hadd_epi32(folded[2], folded[3]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p * channels), sums);
    } else {
      for (int c = 0; c < C; ++c) {
        // Stored and summed in uint32 (wrapping): GCC 12's _mm512_reduce_add_epi32 trips its
        // own -Wuninitialized.
        alignas(64) std::uint32_t lanes[16];
        _mm512_store_si512(lanes, acc[p][c]);
        std::uint32_t sum = 0;
        for (const std::uint32_t lane : lanes) {
          sum += lane;
        }
        out[p * channels + c] = static_cast<std::int32_t>(sum);
      }
    }
  }
}

template <int P>
NPU_VNNI512 inline void pixelRows512(const std::uint8_t* patches, const std::int8_t* weights,
                                     std::int64_t channels, std::int64_t length,
                                     std::int32_t* out) {
  std::int64_t c = 0;
  for (; c + 4 <= channels; c += 4) {
    microBlock512<P, 4>(patches, weights + c * length, length, out + c, channels);
  }
  for (; c < channels; ++c) {
    microBlock512<P, 1>(patches, weights + c * length, length, out + c, channels);
  }
}

NPU_VNNI512 void dotBlockVnni512(const std::uint8_t* patches, std::int64_t pixels,
                                 const std::int8_t* weights, std::int64_t channels,
                                 std::int64_t length, std::int32_t* out) {
  std::int64_t p = 0;
  for (; p + 4 <= pixels; p += 4) {
    pixelRows512<4>(patches + p * length, weights, channels, length, out + p * channels);
  }
  for (; p < pixels; ++p) {
    pixelRows512<1>(patches + p * length, weights, channels, length, out + p * channels);
  }
}

#undef NPU_VNNI512

#define NPU_AVXVNNI [[gnu::target("avx2,avxvnni")]]

/// 256-bit AVX-VNNI: no masked loads, so the tail of each row is summed in plain code.
template <int P, int C>
NPU_AVXVNNI inline void microBlock256(const std::uint8_t* patches, const std::int8_t* weights,
                                      std::int64_t length, std::int32_t* out,
                                      std::int64_t channels) {
  __m256i acc[P][C];
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) {
      acc[p][c] = _mm256_setzero_si256();
    }
  }
  const std::int64_t whole = length / 32 * 32;
  for (std::int64_t k = 0; k < whole; k += 32) {
    __m256i x[P];
    for (int p = 0; p < P; ++p) {
      x[p] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(patches + p * length + k));
    }
    for (int c = 0; c < C; ++c) {
      const __m256i w =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(weights + c * length + k));
      for (int p = 0; p < P; ++p) {
        acc[p][c] = _mm256_dpbusd_avx_epi32(acc[p][c], x[p], w);
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) {
      alignas(32) std::uint32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc[p][c]);
      std::uint32_t sum = 0;
      for (const std::uint32_t lane : lanes) {
        sum += lane;
      }
      for (std::int64_t k = whole; k < length; ++k) {
        sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(patches[p * length + k]) *
                                          static_cast<std::int32_t>(weights[c * length + k]));
      }
      out[p * channels + c] = static_cast<std::int32_t>(sum);
    }
  }
}

NPU_AVXVNNI void dotBlockAvxVnni(const std::uint8_t* patches, std::int64_t pixels,
                                 const std::int8_t* weights, std::int64_t channels,
                                 std::int64_t length, std::int32_t* out) {
  for (std::int64_t p = 0; p < pixels; ++p) {
    std::int64_t c = 0;
    for (; c + 4 <= channels; c += 4) {
      microBlock256<1, 4>(patches + p * length, weights + c * length, length,
                          out + p * channels + c, channels);
    }
    for (; c < channels; ++c) {
      microBlock256<1, 1>(patches + p * length, weights + c * length, length,
                          out + p * channels + c, channels);
    }
  }
}

#undef NPU_AVXVNNI

#endif  // __x86_64__

#if defined(__x86_64__)
/// AVX-VNNI: CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports does not know
/// the name; the OS's YMM support is what the avx2 check above it confirms).
bool hasAvxVnni() {
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  return __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0 && ((a >> 4) & 1U) != 0;
}
#endif

}  // namespace

std::vector<Int8DotKernels> supportedInt8DotKernels() {
  std::vector<Int8DotKernels> kernels;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni")) {
    kernels.push_back({"avx512-vnni", dotBlockVnni512});
  }
  if (__builtin_cpu_supports("avx2") && hasAvxVnni()) {
    kernels.push_back({"avx-vnni", dotBlockAvxVnni});
  }
#endif
  kernels.push_back({"portable", dotBlockPortable});
  return kernels;
}

const Int8DotKernels& int8DotKernels() {
  static const Int8DotKernels chosen = supportedInt8DotKernels().front();
  return chosen;
}

}  // namespace npu::sim
