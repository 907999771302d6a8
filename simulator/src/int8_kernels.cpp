// u8 x s8 multiply-accumulates of an output row, output channels in the lanes: each step loads
// the packed weights of 4 input channels for a block of output channels once and broadcasts 4
// input bytes of each pixel of a tile against them, so a 6-pixel x 64-channel tile keeps 24
// accumulators in registers and runs 24 vpdpbusd per 10 loads. Nothing is reduced horizontally.
#include "npu/simulator/int8_kernels.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "cpu_features.h"

namespace npu::sim {
namespace {

void dotRowPortable(const Int8WindowRow& row, const Int8PackedWeights& weights, std::int32_t* out) {
  const std::int64_t channels = weights.channels;
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    for (std::int64_t c = 0; c < channels; ++c) {
      std::uint32_t sum = 0;  // wraps like the hardware accumulator, defined in C++
      for (std::int64_t t = 0; t < row.taps; ++t) {
        const std::uint8_t* x = row.input + p * row.pixelStride + row.tapOffset[t];
        for (std::int64_t g = 0; g < row.groups; ++g) {
          const std::int8_t* w = weights.bytes.data() + ((t * row.groups + g) * channels + c) * 4;
          for (std::int64_t b = 0; b < 4; ++b) {
            sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(x[4 * g + b]) *
                                              static_cast<std::int32_t>(w[b]));
          }
        }
      }
      out[p * channels + c] = static_cast<std::int32_t>(sum);
    }
  }
}

#if defined(__x86_64__)

/// Four input bytes as one int32 lane value (memcpy: the input has no alignment).
inline std::int32_t fourBytes(const std::uint8_t* x) {
  std::int32_t v = 0;
  std::memcpy(&v, x, sizeof v);
  return v;
}

#define NPU_VNNI512 [[gnu::target("avx512f,avx512bw,avx512vl,avx512vnni")]]

/// P pixels x C blocks of 16 channels; `weights` starts at the tile's first channel and
/// `input` at its first pixel's window.
template <int P, int C>
NPU_VNNI512 void tile512(const Int8WindowRow& row, const std::uint8_t* input,
                         const std::int8_t* weights, std::int64_t channels, std::int32_t* out) {
  __m512i acc[P][C];
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) {
      acc[p][c] = _mm512_setzero_si512();
    }
  }
  const std::int64_t stride = row.pixelStride;
  const std::int64_t step = channels * 4;
  const std::int8_t* w = weights;
  for (std::int64_t t = 0; t < row.taps; ++t) {
    const std::uint8_t* x = input + row.tapOffset[t];
    for (std::int64_t g = 0; g < row.groups; ++g, w += step, x += 4) {
      __m512i wv[C];
      for (int c = 0; c < C; ++c) {
        wv[c] = _mm512_loadu_si512(w + c * 64);
      }
      for (int p = 0; p < P; ++p) {
        const __m512i b = _mm512_set1_epi32(fourBytes(x + p * stride));
        for (int c = 0; c < C; ++c) {
          acc[p][c] = _mm512_dpbusd_epi32(acc[p][c], b, wv[c]);
        }
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    for (int c = 0; c < C; ++c) {
      _mm512_storeu_si512(out + p * channels + c * 16, acc[p][c]);
    }
  }
}

constexpr int kPixels512 = 6;
constexpr int kBlocks512 = 4;

using Tile = void (*)(const Int8WindowRow&, const std::uint8_t*, const std::int8_t*, std::int64_t,
                      std::int32_t*);

template <int P, int... C>
constexpr std::array<Tile, sizeof...(C)> tiles512Row(std::integer_sequence<int, C...>) {
  return {tile512<P, C + 1>...};
}

template <int... P>
constexpr std::array<std::array<Tile, kBlocks512>, sizeof...(P)> tiles512(
    std::integer_sequence<int, P...>) {
  return {tiles512Row<P + 1>(std::make_integer_sequence<int, kBlocks512>{})...};
}

/// tile512<P, C> for P in 1..kPixels512, C in 1..kBlocks512, indexed [P - 1][C - 1].
constexpr auto kTiles512 = tiles512(std::make_integer_sequence<int, kPixels512>{});

void dotRowVnni512(const Int8WindowRow& row, const Int8PackedWeights& weights, std::int32_t* out) {
  const std::int64_t channels = weights.channels;
  const std::int64_t blocks = channels / kInt8ChannelBlock;
  for (std::int64_t b = 0; b < blocks; b += kBlocks512) {
    const std::int64_t c = std::min<std::int64_t>(kBlocks512, blocks - b);
    const std::int8_t* w = weights.bytes.data() + b * kInt8ChannelBlock * 4;
    for (std::int64_t p = 0; p < row.pixels; p += kPixels512) {
      const std::int64_t n = std::min<std::int64_t>(kPixels512, row.pixels - p);
      kTiles512[static_cast<std::size_t>(n - 1)][static_cast<std::size_t>(c - 1)](
          row, row.input + p * row.pixelStride, w, channels,
          out + p * channels + b * kInt8ChannelBlock);
    }
  }
}

#undef NPU_VNNI512

#define NPU_AVXVNNI [[gnu::target("avx2,avxvnni")]]

/// 256-bit AVX-VNNI (16 registers): P pixels x one block of 16 channels (two vectors).
template <int P>
NPU_AVXVNNI void tile256(const Int8WindowRow& row, const std::uint8_t* input,
                         const std::int8_t* weights, std::int64_t channels, std::int32_t* out) {
  __m256i acc[P][2];
  for (int p = 0; p < P; ++p) {
    acc[p][0] = _mm256_setzero_si256();
    acc[p][1] = _mm256_setzero_si256();
  }
  const std::int64_t stride = row.pixelStride;
  const std::int64_t step = channels * 4;
  const std::int8_t* w = weights;
  for (std::int64_t t = 0; t < row.taps; ++t) {
    const std::uint8_t* x = input + row.tapOffset[t];
    for (std::int64_t g = 0; g < row.groups; ++g, w += step, x += 4) {
      const __m256i w0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w));
      const __m256i w1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32));
      for (int p = 0; p < P; ++p) {
        const __m256i b = _mm256_set1_epi32(fourBytes(x + p * stride));
        acc[p][0] = _mm256_dpbusd_avx_epi32(acc[p][0], b, w0);
        acc[p][1] = _mm256_dpbusd_avx_epi32(acc[p][1], b, w1);
      }
    }
  }
  for (int p = 0; p < P; ++p) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + p * channels), acc[p][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + p * channels + 8), acc[p][1]);
  }
}

constexpr int kPixels256 = 4;
constexpr std::array<Tile, kPixels256> kTiles256{tile256<1>, tile256<2>, tile256<3>, tile256<4>};

void dotRowAvxVnni(const Int8WindowRow& row, const Int8PackedWeights& weights, std::int32_t* out) {
  const std::int64_t channels = weights.channels;
  for (std::int64_t c = 0; c < channels; c += kInt8ChannelBlock) {
    for (std::int64_t p = 0; p < row.pixels; p += kPixels256) {
      const std::int64_t n = std::min<std::int64_t>(kPixels256, row.pixels - p);
      kTiles256[static_cast<std::size_t>(n - 1)](row, row.input + p * row.pixelStride,
                                                 weights.bytes.data() + c * 4, channels,
                                                 out + p * channels + c);
    }
  }
}

#undef NPU_AVXVNNI

#endif  // __x86_64__

}  // namespace

std::vector<Int8DotKernels> supportedInt8DotKernels() {
  std::vector<Int8DotKernels> kernels;
#if defined(__x86_64__)
  if (cpuFeatures().avx512Vnni) {
    kernels.push_back({"avx512-vnni", dotRowVnni512});
  }
  if (cpuFeatures().avxVnni) {
    kernels.push_back({"avx-vnni", dotRowAvxVnni});
  }
#endif
  kernels.push_back({"portable", dotRowPortable});
  return kernels;
}

const Int8DotKernels& int8DotKernels() {
  static const Int8DotKernels chosen = supportedInt8DotKernels().front();
  return chosen;
}

}  // namespace npu::sim
