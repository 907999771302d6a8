// Fuzz target: ONNX models (npu run/compile/import): import, the front-end passes, partition.
#include "../fuzz_target.h"
#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/passes/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    npu::compiler::Graph graph = npu::compiler::importOnnxBytes(bytes, "fuzz.onnx", ".");
    npu::compiler::runFrontEndPasses(graph);
    (void)npu::compiler::partitionGraph(graph);
  });
}
