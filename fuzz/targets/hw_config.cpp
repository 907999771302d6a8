// Fuzz target: hardware configs (`--hw FILE`, bundle `hw.yaml`): parse, then print back and
// re-parse.
#include <string>
#include <string_view>

#include "../fuzz_target.h"
#include "npu/isa/npu_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const npu::isa::NpuConfig config = npu::isa::parseNpuConfig(text, "fuzz.yaml");
    // What parses must print back to the same config (bundles carry the printed form).
    if (!(npu::isa::parseNpuConfig(npu::isa::toYaml(config), "printed.yaml") == config)) {
      __builtin_trap();
    }
  });
}
