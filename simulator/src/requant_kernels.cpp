// Requant of output rows. The AVX-512 variant takes 16 channels per register: two vpmuldq give
// the 64-bit products of the even and the odd lanes, each rounded, shifted (vpsravq) and clamped
// in 64 bits; the clamp to int32 and the clip fold into one 64-bit clamp (below), and the low 32
// bits plus the zero point, truncated to bytes (vpmovdb), are the outputs.
#include "npu/simulator/requant_kernels.h"

#include <algorithm>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_features.h"

namespace npu::sim {
namespace {

/// The definition as one loop over contiguous channels per pixel, which GCC vectorises (64-bit
/// products, per-lane shifts) for whatever target the caller is compiled for.
[[gnu::always_inline]] inline void requantRowLoops(const RequantRow& row) {
  const std::int64_t lo = row.clipLo;
  const std::int64_t hi = row.clipHi;
  const std::int64_t zp = row.outZp;
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    const std::int32_t* __restrict acc = row.acc + p * row.stride;
    std::int8_t* __restrict out = row.out + p * row.channels;
    const std::int32_t* __restrict multiplier = row.multiplier;
    const std::int32_t* __restrict rightShift = row.rightShift;
    for (std::int64_t c = 0; c < row.channels; ++c) {
      const std::int64_t t = rightShift[c];
      std::int64_t v = (std::int64_t{acc[c]} * multiplier[c] + (std::int64_t{1} << (t - 1))) >> t;
      v = std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                   std::numeric_limits<std::int32_t>::max()) +
          zp;
      out[c] = static_cast<std::int8_t>(std::clamp(v, lo, hi));
    }
  }
}

void requantRowPortable(const RequantRow& row) {
  requantRowLoops(row);
}

#if defined(__x86_64__)

[[gnu::target("avx2")]] void requantRowAvx2(const RequantRow& row) {
  requantRowLoops(row);
}

#endif

#if defined(__x86_64__)

#define NPU_AVX512 [[gnu::target("avx512f,avx512bw,avx512vl")]]

NPU_AVX512 void requantRow512(const RequantRow& row) {
  // clamp(clamp(v, INT32_MIN, INT32_MAX) + z, lo, hi) = clamp(v + z, L, H) with
  // L = clamp(INT32_MIN + z, lo, hi) and H = clamp(INT32_MAX + z, lo, hi) (nested clamps with
  // lo <= hi), i.e. clamp(v, L - z, H - z) + z. The bytes are that value modulo 256, so the
  // addition of z may wrap in 32 bits.
  const std::int64_t z = row.outZp;
  const std::int64_t low =
      std::clamp<std::int64_t>(std::int64_t{std::numeric_limits<std::int32_t>::min()} + z,
                               row.clipLo, row.clipHi) -
      z;
  const std::int64_t high =
      std::clamp<std::int64_t>(std::int64_t{std::numeric_limits<std::int32_t>::max()} + z,
                               row.clipLo, row.clipHi) -
      z;
  const __m512i lowV = _mm512_set1_epi64(low);
  const __m512i highV = _mm512_set1_epi64(high);
  const __m512i zV = _mm512_set1_epi32(static_cast<std::int32_t>(z));
  const __m512i one = _mm512_set1_epi64(1);
  for (std::int64_t c = 0; c < row.channels; c += 16) {
    const std::int64_t left = row.channels - c;
    const __mmask16 mask =
        left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1U << left) - 1);
    // Lane pairs: the even channels in the low halves, the odd ones in the high halves.
    const __m512i m = _mm512_maskz_loadu_epi32(mask, row.multiplier + c);
    const __m512i t = _mm512_maskz_loadu_epi32(mask, row.rightShift + c);
    const __m512i mOdd = _mm512_srli_epi64(m, 32);
    const __m512i tEven = _mm512_and_si512(t, _mm512_set1_epi64(0xFFFFFFFF));
    const __m512i tOdd = _mm512_srli_epi64(t, 32);
    const __m512i rEven = _mm512_sllv_epi64(one, _mm512_sub_epi64(tEven, one));
    const __m512i rOdd = _mm512_sllv_epi64(one, _mm512_sub_epi64(tOdd, one));
    for (std::int64_t p = 0; p < row.pixels; ++p) {
      const __m512i a = _mm512_maskz_loadu_epi32(mask, row.acc + p * row.stride + c);
      __m512i even = _mm512_add_epi64(_mm512_mul_epi32(a, m), rEven);
      __m512i odd = _mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), mOdd), rOdd);
      even = _mm512_min_epi64(_mm512_max_epi64(_mm512_srav_epi64(even, tEven), lowV), highV);
      odd = _mm512_min_epi64(_mm512_max_epi64(_mm512_srav_epi64(odd, tOdd), lowV), highV);
      const __m512i both =
          _mm512_mask_blend_epi32(__mmask16{0xAAAA}, even, _mm512_slli_epi64(odd, 32));
      _mm_mask_storeu_epi8(row.out + p * row.channels + c, mask,
                           _mm512_cvtepi32_epi8(_mm512_add_epi32(both, zV)));
    }
  }
}

#undef NPU_AVX512

#endif  // __x86_64__

}  // namespace

std::vector<RequantKernels> supportedRequantKernels() {
  std::vector<RequantKernels> kernels;
#if defined(__x86_64__)
  if (cpuFeatures().avx512) {
    kernels.push_back({"avx512", requantRow512});
  }
  if (cpuFeatures().avx2) {
    kernels.push_back({"avx2", requantRowAvx2});
  }
#endif
  kernels.push_back({"portable", requantRowPortable});
  return kernels;
}

const RequantKernels& requantKernels() {
  static const RequantKernels chosen = supportedRequantKernels().front();
  return chosen;
}

}  // namespace npu::sim
