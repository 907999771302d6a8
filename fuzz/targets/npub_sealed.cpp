// Fuzz target: the .npub container with its CRC-32 re-sealed before parsing, so mutations reach the
// section, manifest and instruction validators and the simulators behind the CRC check (which
// stops almost every mutated file at the door). Runs the functional simulator and the timed one
// under a cycle budget, for programs within the simulation budget (simulation_budget.h).
#include <vector>

#include "../fuzz_target.h"
#include "../simulation_budget.h"
#include "npu/isa/assembly.h"
#include "npu/isa/program.h"
#include "npu/simulator/simulate.h"
#include "npu/support/crc32.h"

namespace {

/// docs/program-format.md: the CRC-32 of the whole file (with this field zero) at byte 12.
constexpr std::size_t kCrcOffset = 12;

std::vector<std::uint8_t> sealed(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
  if (copy.size() >= kCrcOffset + 4) {
    for (std::size_t i = 0; i < 4; ++i) {
      copy[kCrcOffset + i] = 0;
    }
    const std::uint32_t crc = npu::crc32(copy);
    for (std::size_t i = 0; i < 4; ++i) {
      copy[kCrcOffset + i] = static_cast<std::uint8_t>(crc >> (8 * i));
    }
  }
  return copy;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const std::vector<std::uint8_t> file = sealed(bytes);
    const npu::isa::Program program = npu::isa::parseProgram(file, "fuzz.npub");
    (void)npu::isa::disassemble(program);
    if (!npu::fuzz::worthSimulating(program)) {
      return;
    }
    npu::sim::SimOptions options;
    options.mode = npu::sim::SimMode::Functional;
    (void)npu::sim::simulate(program, options);  // faults come back in the result
    options.mode = npu::sim::SimMode::Timed;
    options.maxCycles = 2'000'000;  // a watchdog fault past this, not a hang
    (void)npu::sim::simulate(program, options);
  });
}
