// CPU feature detection for the simulator's kernel variants.
#include "cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace npu::sim {
namespace {

CpuFeatures detect() {
  CpuFeatures f;
#if defined(__x86_64__)
  __builtin_cpu_init();
  f.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
  f.avx512Vnni = f.avx512 && __builtin_cpu_supports("avx512vnni");
  f.avx2 = __builtin_cpu_supports("avx2");
  // AVX-VNNI: CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports does not
  // know the name; the OS's YMM support is what the avx2 check confirms).
  unsigned a = 0;
  unsigned b = 0;
  unsigned c = 0;
  unsigned d = 0;
  f.avxVnni = f.avx2 && __get_cpuid_count(7, 1, &a, &b, &c, &d) != 0 && ((a >> 4) & 1U) != 0;
#endif
  return f;
}

}  // namespace

const CpuFeatures& cpuFeatures() {
  static const CpuFeatures features = detect();
  return features;
}

}  // namespace npu::sim
