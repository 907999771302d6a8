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
    npu::compiler::Graph graph =
        npu::compiler::parseGraphYaml(std::string(text), "fuzz.yaml", "/nonexistent-fuzz-dir");
    npu::compiler::runFrontEndPasses(graph);
    (void)npu::compiler::partitionGraph(graph);
  });
}
