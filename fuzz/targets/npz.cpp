// Fuzz target: .npz archives (multi-input --calib and --data, numpy.savez and savez_compressed).
#include "npu/compiler/frontend/npz.h"
#include "../fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    (void)npu::compiler::parseNpz(bytes, "fuzz.npz");
  });
}
