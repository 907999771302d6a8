// The int16 inner loops of the CONV datapath, compiled for several x86 instruction sets from one
// loop body; the widest one the host CPU supports is picked once at run time, and the portable
// one runs everywhere else. Every variant computes the same bits.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::sim {

struct Int16Kernels {
  /// "avx512-vnni", "avx512", "avx2" or "portable".
  std::string_view isa;
  /// sum over i < n of a[i] * b[i], accumulated in int32 (wrapping, as the MAC array).
  std::int32_t (*dot)(const std::int16_t* a, const std::int16_t* b, std::int64_t n);
  /// acc[i] += x[i] * w[i] for i < n (the depthwise tap, one channel per lane).
  void (*multiplyAccumulate)(std::int32_t* acc, const std::int16_t* x, const std::int16_t* w,
                             std::int64_t n);
};

/// The variants this CPU can run, widest first.
std::vector<Int16Kernels> supportedInt16Kernels();

/// The variant the datapath uses: the first of supportedInt16Kernels().
const Int16Kernels& int16Kernels();

}  // namespace npu::sim
