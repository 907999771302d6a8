// Fuzz target: YAML graph specs (`npu run/compile net.yaml`, bench subnets): import, the front-end
// passes, partition.
#include <string>
#include <string_view>

#include "../fuzz_target.h"
#include "npu/compiler/frontend/yaml_import.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/passes/pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return npu::fuzz::runTarget(data, size, [](std::span<const std::uint8_t> bytes) {
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // .npy weights resolve against a folder that does not exist: the target reads no files.
    // Generated weights stop at 2^20 values (the CLI's limit is 2^27): generating them, folding
    // the BatchNorms and measuring their statistics costs about 0.1 s per million weights under
    // ASan and coverage (ResNet-18's 11.7 M took a second, MobileNetV2's 3.5 M 0.35 s: the
    // campaigns' 1 s timeout on a busy machine), with no code behind it that a smaller graph
    // does not reach.
    constexpr std::int64_t kFuzzSeededWeights = std::int64_t{1} << 20;
    npu::compiler::Graph graph = npu::compiler::parseGraphYaml(
        std::string(text), "fuzz.yaml", "/nonexistent-fuzz-dir", kFuzzSeededWeights);
    npu::compiler::runFrontEndPasses(graph);
    (void)npu::compiler::partitionGraph(graph);
  });
}
