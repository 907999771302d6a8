// RTL co-simulation figures: for each program, the SystemC timed model and the RTL (Verilator)
// side by side: cycles, the cycle delta, whether the final DDR matches, and simulated cycles per
// second of each. Prints a Markdown table (docs/performance.md).
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "conv_program.h"
#include "npu/isa/assembly.h"
#include "npu/runtime/cosim.h"
#include "random_program.h"

namespace {

struct Case {
  std::string name;
  npu::isa::Program program;
};

npu::isa::Program randomProgram(std::uint64_t seed, int tiles) {
  return npu::sim::testing::randomTileProgram(npu::rtl::rtlConfig(), seed, tiles);
}

}  // namespace

int main() {
  const std::filesystem::path source = NPU_SOURCE_DIR;
  const npu::isa::NpuConfig& config = npu::rtl::rtlConfig();
  std::vector<Case> cases;
  cases.push_back(
      {"examples/asm/smoke.s", npu::isa::assembleFile(source / "examples/asm/smoke.s")});
  for (const char* name :
       {"eltwise", "pool", "conv_dw", "conv_split", "tokens", "token_full", "dma", "norm"}) {
    const std::string path = fmt::format("tests/data/rtl/{}.s", name);
    cases.push_back({path, npu::isa::assembleFile(source / path)});
  }
  cases.push_back({"random, 40 tiles (seed 7)", randomProgram(7, 40)});
  cases.push_back({"conv 56x56x64 -> 64, 3x3 (7 bands)",
                   npu::bench::tiledConvProgram(config, 56, 56, 64, 64, false, 8)});
  cases.push_back({"depthwise 112x112x32, 3x3 (14 bands)",
                   npu::bench::tiledConvProgram(config, 112, 112, 32, 32, true, 8)});

  fmt::print(
      "| program | instructions | SystemC cycles | RTL cycles | delta | DDR | SystemC "
      "cycles/s | RTL cycles/s |\n|---|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (const Case& c : cases) {
    const npu::runtime::CosimReport report = npu::runtime::cosimulate(c.program);
    const double systemc = static_cast<double>(report.timed.totalCycles) / report.timed.seconds;
    const double rtl = static_cast<double>(report.rtl.totalCycles) / report.rtl.seconds;
    fmt::print("| {} | {} | {} | {} | {} | {} | {:.2f} M | {:.1f} k |\n", c.name,
               c.program.instructions.size(), report.timed.totalCycles, report.rtl.totalCycles,
               report.cycleDelta(), report.firstDdrDifference ? "differs" : "equal", systemc / 1e6,
               rtl / 1e3);
    failures += report.matches() ? 0 : 1;
  }
  return failures == 0 ? 0 : 1;
}
