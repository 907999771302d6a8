// Fuzz target: quantization configs (`--quant FILE`): parse.
#include <string>
#include <string_view>

#include "../fuzz_target.h"
#include "npu/compiler/quant/quant_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    (void)npu::compiler::parseQuantConfig(std::string(text), "fuzz.yaml");
  });
}
