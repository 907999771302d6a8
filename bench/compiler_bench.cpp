// Compiler front-end speed: ONNX import and the front-end passes on torchvision ResNet-50.
// The model is exported once (scripts/export_torchvision.py) into the build folder.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "bench_models.h"
#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/passes/pipeline.h"

namespace {

std::filesystem::path resnet50() {
  return npu::bench::benchModel("resnet50");
}

void importResNet50(benchmark::State& state) {
  std::filesystem::path model = resnet50();
  std::size_t nodes = 0;
  for (auto _ : state) {
    npu::compiler::Graph graph = npu::compiler::importOnnx(model);
    nodes = graph.nodes().size();
    benchmark::DoNotOptimize(graph);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(importResNet50)->Unit(benchmark::kMillisecond);

void importAndPassesResNet50(benchmark::State& state) {
  std::filesystem::path model = resnet50();
  std::size_t nodes = 0;
  for (auto _ : state) {
    npu::compiler::Graph graph = npu::compiler::importOnnx(model);
    npu::compiler::runFrontEndPasses(graph);
    nodes = graph.nodes().size();
    benchmark::DoNotOptimize(graph);
  }
  state.counters["nodes"] = static_cast<double>(nodes);
}
BENCHMARK(importAndPassesResNet50)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
