// Simulator speed: a tiled 56x56x64 -> 64 3x3 conv layer and a >= 1 GMAC program, in functional
// and timed mode (arg 0: 0 functional, 1 timed), on 1 or 2 datapath threads (arg 1). Reports
// MAC/s and simulated cycles/s as counters. The ConvDatapath benchmarks run only the programs'
// CONV instructions on SRAMs already loaded: the datapath without DDR, DMA or token analysis; the
// StreamChecks benchmarks the token analysis and hazard check alone.
#include <benchmark/benchmark.h>

#include <variant>

#include "conv_program.h"
#include "npu/simulator/datapath.h"
#include "npu/simulator/simulate.h"
#include "npu/simulator/timing.h"
#include "npu/simulator/token_analysis.h"

namespace {

npu::isa::NpuConfig smallConfig() {
  return npu::isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
}

void runProgram(benchmark::State& state, const npu::isa::Program& program) {
  npu::sim::SimOptions options;
  const auto mode = static_cast<npu::sim::SimMode>(state.range(0));
  options.mode = mode;
  options.datapathThreads = static_cast<unsigned>(state.range(1));
  std::uint64_t macs = 0;
  std::uint64_t cycles = 0;
  for (auto _ : state) {
    const npu::sim::SimResult result = npu::sim::simulate(program, options);
    if (result.fault) {
      state.SkipWithError(result.fault->what());
      return;
    }
    macs = result.stats.macs;
    cycles = result.stats.totalCycles;
  }
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(macs) * state.iterations(),
                                               benchmark::Counter::kIsRate);
  state.counters["MACs"] = static_cast<double>(macs);
  if (mode == npu::sim::SimMode::Timed) {
    state.counters["cycles"] = static_cast<double>(cycles);
    state.counters["sim_cycles/s"] = benchmark::Counter(
        static_cast<double>(cycles) * state.iterations(), benchmark::Counter::kIsRate);
  }
}

void BM_Conv56x56x64(benchmark::State& state) {
  const auto program = npu::bench::tiledConvProgram(smallConfig(), 56, 56, 64, 64, false, 8);
  runProgram(state, program);
}
BENCHMARK(BM_Conv56x56x64)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Depthwise112x112x32(benchmark::State& state) {
  const auto program = npu::bench::tiledConvProgram(smallConfig(), 112, 112, 32, 32, true, 8);
  runProgram(state, program);
}
BENCHMARK(BM_Depthwise112x112x32)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_OneGmac(benchmark::State& state) {
  // Nine passes over the 56x56x64 layer: 1.04 GMAC.
  const auto program = npu::bench::tiledConvProgram(smallConfig(), 56, 56, 64, 64, false, 8, 9);
  runProgram(state, program);
}
BENCHMARK(BM_OneGmac)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

/// The program's CONV instructions, one after another on one thread, on the SRAMs as the
/// program's LOADs leave them (each band's slot then holds the last band loaded into it; the
/// datapath's work does not depend on the values). Per instruction this includes the datapath's
/// set-up (weights packed, input offset, per-channel constants) and the requant, not the DDR
/// image, the DMA copies, the token analysis or the hazard check.
void runConvDatapath(benchmark::State& state, const npu::isa::Program& program) {
  npu::isa::DdrImage ddr = npu::isa::DdrImage::fromProgram(program);
  npu::sim::SramState sram(program.config);
  std::uint64_t macs = 0;
  for (const npu::isa::Instruction& instruction : program.instructions) {
    if (std::holds_alternative<npu::isa::Load>(instruction)) {
      npu::sim::executeDatapath(instruction, sram, ddr);
    } else if (std::holds_alternative<npu::isa::Conv>(instruction)) {
      macs += npu::sim::macCount(instruction);
    }
  }
  for (auto _ : state) {
    for (const npu::isa::Instruction& instruction : program.instructions) {
      if (std::holds_alternative<npu::isa::Conv>(instruction)) {
        npu::sim::executeDatapath(instruction, sram, ddr);
      }
    }
    benchmark::DoNotOptimize(sram.output.data());
  }
  state.counters["MAC/s"] = benchmark::Counter(static_cast<double>(macs) * state.iterations(),
                                               benchmark::Counter::kIsRate);
  state.counters["MACs"] = static_cast<double>(macs);
}

void BM_ConvDatapath56x56x64(benchmark::State& state) {
  runConvDatapath(state, npu::bench::tiledConvProgram(smallConfig(), 56, 56, 64, 64, false, 8));
}
BENCHMARK(BM_ConvDatapath56x56x64)->Unit(benchmark::kMillisecond);

void BM_DepthwiseDatapath112x112x32(benchmark::State& state) {
  runConvDatapath(state, npu::bench::tiledConvProgram(smallConfig(), 112, 112, 32, 32, true, 8));
}
BENCHMARK(BM_DepthwiseDatapath112x112x32)->Unit(benchmark::kMillisecond);

/// The checks before a run, on the program's stream: the token analysis and the hazard check.
/// simulate() remembers streams that passed them, so its repeated runs above pay this once.
void runStreamChecks(benchmark::State& state, const npu::isa::Program& program) {
  for (auto _ : state) {
    const npu::sim::TokenOrder order =
        npu::sim::analyzeTokens(program.instructions, program.config);
    npu::sim::checkHazards(program.instructions, order, program.config);
    benchmark::DoNotOptimize(&order);
  }
}

void BM_StreamChecks56x56x64(benchmark::State& state) {
  runStreamChecks(state, npu::bench::tiledConvProgram(smallConfig(), 56, 56, 64, 64, false, 8));
}
BENCHMARK(BM_StreamChecks56x56x64)->Unit(benchmark::kMillisecond);

void BM_StreamChecksDepthwise112x112x32(benchmark::State& state) {
  runStreamChecks(state, npu::bench::tiledConvProgram(smallConfig(), 112, 112, 32, 32, true, 8));
}
BENCHMARK(BM_StreamChecksDepthwise112x112x32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
