// Private to the simulator: which of the instruction sets its kernels are compiled for this CPU
// runs, detected once (every kernel family picks its variant from these), and the warning
// suppression every file of AVX-512 intrinsics needs.
#pragma once

namespace npu::sim {

struct CpuFeatures {
  bool avx512 = false;      ///< AVX-512 F, BW and VL
  bool avx512Vnni = false;  ///< avx512 plus AVX-512 VNNI
  bool avx2 = false;
  bool avxVnni = false;  ///< AVX2 plus AVX-VNNI (256-bit vpdpbusd)
};

/// The running CPU's features (all false off x86-64).
const CpuFeatures& cpuFeatures();

}  // namespace npu::sim

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_*, which its -Wuninitialized reports at
// every use (GCC bug 105593): nothing in the kernels reads an undefined lane.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
