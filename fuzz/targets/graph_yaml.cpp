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
    // The work the spec may ask for is bounded below the CLI's limits: 2^20 generated weight
    // values (the CLI: 2^27) and 2^22 activation elements for the BatchNorm statistics pass
    // (the CLI: 2^30). Generating, folding and measuring cost about 0.1 s per million weights
    // under ASan and coverage (ResNet-18's 11.7 M took a second, MobileNetV2's 3.5 M 0.35 s),
    // and a 190 M-element activation 0.8 s and 2.4 GB: the campaigns' 1 s timeout and 2 GiB
    // RSS limit, with no code behind them that a smaller graph does not reach.
    npu::compiler::GraphYamlLimits limits;
    limits.seededWeights = std::int64_t{1} << 20;
    limits.statisticsElements = std::int64_t{1} << 22;
    npu::compiler::Graph graph = npu::compiler::parseGraphYaml(std::string(text), "fuzz.yaml",
                                                               "/nonexistent-fuzz-dir", limits);
    npu::compiler::runFrontEndPasses(graph);
    (void)npu::compiler::partitionGraph(graph);
  });
}
