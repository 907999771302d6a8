// Whole-model figures of the main flow: compile time of ResNet-50 (import, passes, quantization
// with 8 calibration inputs, codegen), simulation time of one ResNet-18 inference, and ResNet-18's
// cycles and MAC utilization per hardware config (counters).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "bench_models.h"
#include "npu/runtime/main_job.h"
#include "npu/runtime/run_model.h"

namespace {

namespace fs = std::filesystem;

npu::runtime::MainJobOptions options(const std::string& model, const std::string& hw) {
  npu::runtime::MainJobOptions o;
  o.model = npu::bench::benchModel(model);
  o.hw = fs::path(NPU_SOURCE_DIR) / "configs" / (hw + ".yaml");
  return o;  // no --calib: 8 seeded synthetic inputs
}

void compileResNet50(benchmark::State& state) {
  const npu::runtime::MainJobOptions o = options("resnet50", "npu-s");
  std::size_t instructions = 0;
  for (auto _ : state) {
    const npu::runtime::PreparedModel prepared = npu::runtime::prepareModel(o);
    instructions = prepared.compiled.programs.front().program.instructions.size();
    benchmark::DoNotOptimize(prepared);
  }
  state.counters["instructions"] = static_cast<double>(instructions);
}
BENCHMARK(compileResNet50)->Unit(benchmark::kSecond)->Iterations(1);

/// One ResNet-18 inference's NPU program on one engine.
void simulateResNet18(benchmark::State& state, const std::string& hw, npu::sim::SimMode mode) {
  const npu::runtime::PreparedModel prepared = npu::runtime::prepareModel(options("resnet18", hw));
  const auto inputs =
      npu::runtime::segmentInputs(prepared.compiled, prepared.compiled.calibration.front());
  const npu::runtime::SegmentImages images =
      npu::runtime::segmentImages(prepared.compiled, 0, inputs[0]);
  npu::sim::SimResult result;
  for (auto _ : state) {
    result = npu::sim::simulate(images.compiled.program, npu::sim::SimOptions{.mode = mode});
    benchmark::DoNotOptimize(result);
  }
  if (result.fault || result.ddr.firstDifference(images.expected)) {
    state.SkipWithError("the run faulted or differs from golden");
  }
  state.counters["macs"] = static_cast<double>(result.stats.macs);
  if (mode == npu::sim::SimMode::Timed) {
    state.counters["cycles"] = static_cast<double>(result.stats.totalCycles);
    state.counters["mac_util"] = result.stats.macUtilization;
    state.counters["sim_cycles_per_s"] =
        benchmark::Counter(static_cast<double>(result.stats.totalCycles),
                           benchmark::Counter::kIsIterationInvariantRate);
  }
}
BENCHMARK_CAPTURE(simulateResNet18, npu_s_timed, "npu-s", npu::sim::SimMode::Timed)
    ->Unit(benchmark::kSecond)
    ->Iterations(2);
BENCHMARK_CAPTURE(simulateResNet18, npu_s_functional, "npu-s", npu::sim::SimMode::Functional)
    ->Unit(benchmark::kSecond)
    ->Iterations(2);
BENCHMARK_CAPTURE(simulateResNet18, npu_l_timed, "npu-l", npu::sim::SimMode::Timed)
    ->Unit(benchmark::kSecond)
    ->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
