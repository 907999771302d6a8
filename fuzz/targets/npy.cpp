// Fuzz target: .npy arrays (calibration sets, --data, --labels, YAML graph weights).
#include "npu/compiler/frontend/npy.h"
#include "../fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    (void)npu::compiler::parseNpy(bytes, "fuzz.npy");
  });
}
