// Fuzz target: the .npub program container (npu sim/disasm/cosim): parse, validate, disassemble,
// and run on the functional simulator.
#include "../fuzz_target.h"
#include "../simulation_budget.h"
#include "npu/isa/assembly.h"
#include "npu/isa/program.h"
#include "npu/simulator/simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const npu::isa::Program program = npu::isa::parseProgram(bytes, "fuzz.npub");
    (void)npu::isa::disassemble(program);
    if (!npu::fuzz::worthSimulating(program)) {
      return;
    }
    npu::sim::SimOptions options;
    options.mode = npu::sim::SimMode::Functional;
    (void)npu::sim::simulate(program, options);  // faults come back in the result
  });
}
