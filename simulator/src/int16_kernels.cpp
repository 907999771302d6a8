// One loop body per kernel, instantiated in functions with different target attributes: GCC
// inlines the body into each and vectorises it for that instruction set (vpdpwssd with
// AVX-512 VNNI, 512-bit vpmaddwd with AVX-512BW, 256-bit with AVX2, SSE2 in the portable one).
#include "npu/simulator/int16_kernels.h"

#include "cpu_features.h"

namespace npu::sim {
namespace {

// Accumulation in uint32: the wrap-around of the 32-bit hardware accumulator, defined in C++.
[[gnu::always_inline]] inline std::int32_t dotBody(const std::int16_t* a, const std::int16_t* b,
                                                   std::int64_t n) {
  std::uint32_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(a[i]) *
                                      static_cast<std::int32_t>(b[i]));
  }
  return static_cast<std::int32_t>(sum);
}

[[gnu::always_inline]] inline void multiplyAccumulateBody(std::int32_t* acc, const std::int16_t* x,
                                                          const std::int16_t* w, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    acc[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) +
                                       static_cast<std::uint32_t>(static_cast<std::int32_t>(x[i]) *
                                                                  static_cast<std::int32_t>(w[i])));
  }
}

#define NPU_INT16_KERNELS(suffix, target_attribute)                                          \
  target_attribute std::int32_t dot##suffix(const std::int16_t* a, const std::int16_t* b,    \
                                            std::int64_t n) {                                \
    return dotBody(a, b, n);                                                                 \
  }                                                                                          \
  target_attribute void multiplyAccumulate##suffix(std::int32_t* acc, const std::int16_t* x, \
                                                   const std::int16_t* w, std::int64_t n) {  \
    multiplyAccumulateBody(acc, x, w, n);                                                    \
  }

#if defined(__x86_64__)
NPU_INT16_KERNELS(Vnni, [[gnu::target("avx512f,avx512bw,avx512vl,avx512vnni")]])
NPU_INT16_KERNELS(Avx512, [[gnu::target("avx512f,avx512bw,avx512vl")]])
NPU_INT16_KERNELS(Avx2, [[gnu::target("avx2")]])
#endif
NPU_INT16_KERNELS(Portable, )

#undef NPU_INT16_KERNELS

}  // namespace

std::vector<Int16Kernels> supportedInt16Kernels() {
  std::vector<Int16Kernels> kernels;
#if defined(__x86_64__)
  if (cpuFeatures().avx512Vnni) {
    kernels.push_back({"avx512-vnni", dotVnni, multiplyAccumulateVnni});
  }
  if (cpuFeatures().avx512) {
    kernels.push_back({"avx512", dotAvx512, multiplyAccumulateAvx512});
  }
  if (cpuFeatures().avx2) {
    kernels.push_back({"avx2", dotAvx2, multiplyAccumulateAvx2});
  }
#endif
  kernels.push_back({"portable", dotPortable, multiplyAccumulatePortable});
  return kernels;
}

const Int16Kernels& int16Kernels() {
  static const Int16Kernels chosen = supportedInt16Kernels().front();
  return chosen;
}

}  // namespace npu::sim
