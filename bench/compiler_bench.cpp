// Compiler front-end speed: ONNX import and the front-end passes on torchvision ResNet-50.
// The model is exported once (scripts/export_torchvision.py) into the build folder.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/passes/pipeline.h"

namespace {

std::filesystem::path resnet50() {
  std::filesystem::path dir(NPU_BENCH_MODEL_DIR);
  std::filesystem::path model = dir / "resnet50.onnx";
  if (!std::filesystem::exists(model)) {
    std::string command = std::string(NPU_PYTHON) + " " + NPU_SOURCE_DIR +
                          "/scripts/export_torchvision.py --out " + dir.string() + " resnet50";
    std::fprintf(stderr, "exporting ResNet-50: %s\n", command.c_str());
    if (std::system(command.c_str()) != 0 || !std::filesystem::exists(model)) {
      std::fprintf(stderr, "compiler_bench: could not export %s\n", model.string().c_str());
      std::exit(1);
    }
  }
  return model;
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
