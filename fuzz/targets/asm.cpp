// Fuzz target: assembly text (npu asm): assemble, then the program's own round trips.
#include <string_view>

#include "../fuzz_target.h"
#include "npu/isa/assembly.h"
#include "npu/isa/program.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    const npu::isa::Program program = npu::isa::assemble(text, "fuzz.s", "");
    const std::vector<std::uint8_t> container = npu::isa::serializeProgram(program);
    (void)npu::isa::parseProgram(container, "fuzz.npub");
    (void)npu::isa::disassemble(program);
  });
}
