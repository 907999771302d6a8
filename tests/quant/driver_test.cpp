// The compiler driver: one call from an imported graph to programs, with stage dumps, stage
// verification and the early stop quant-report uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "npu/compiler/driver/compile.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/isa/npu_config.h"
#include "test_models.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::makeSmallNet;
using testing::smallNetSamples;

CompileOptions smallNetOptions() {
  CompileOptions options;
  options.hw = isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml");
  options.calibrationSamples = [](const Graph&) { return smallNetSamples(4); };
  return options;
}

TEST(Driver, CompilesAGraphToOneProgramPerNpuSegment) {
  CompiledModel compiled = compileModel(makeSmallNet(), smallNetOptions());
  ASSERT_FALSE(compiled.model.npuSegments.empty());
  EXPECT_EQ(compiled.programs.size(), compiled.model.npuSegments.size());
  EXPECT_EQ(compiled.graphs.size(), compiled.programs.size());
  EXPECT_EQ(compiled.calibration.size(), 4U);
  EXPECT_EQ(compiled.hw.name, "npu-s");
}

TEST(Driver, WithoutATargetStopsAfterQuantizationAsQuantizeModelDoes) {
  CompileOptions options = smallNetOptions();
  options.hw.reset();
  CompiledModel compiled = compileModel(makeSmallNet(), options);
  EXPECT_TRUE(compiled.programs.empty());
  Graph optimized = makeSmallNet();
  runFrontEndPasses(optimized);
  QuantizedModel direct = quantizeModel(std::move(optimized), smallNetSamples(4), QuantConfig{});
  ASSERT_EQ(direct.npuSegments.size(), compiled.model.npuSegments.size());
  for (std::size_t i = 0; i < direct.npuSegments.size(); ++i) {
    EXPECT_EQ(dumpQuantizedGraph(direct.npuSegments[i].graph),
              dumpQuantizedGraph(compiled.model.npuSegments[i].graph));
  }
}

TEST(Driver, DumpsAfterTheNamedStagesInFlowOrder) {
  CompileOptions options = smallNetOptions();
  options.stages.dumpAfter = {"codegen", "fuse-activations", "partition", "quantize"};
  std::vector<std::string> stages;
  std::string quantized;
  std::string program;
  options.stages.dumpSink = [&](std::string_view stage, const std::string& text) {
    stages.emplace_back(stage);
    if (stage == "quantize") {
      quantized = text;
    } else if (stage == "codegen") {
      program = text;
    }
  };
  compileModel(makeSmallNet(), options);
  EXPECT_EQ(stages,
            (std::vector<std::string>{"fuse-activations", "partition", "quantize", "codegen"}));
  EXPECT_NE(quantized.find("conv          'conv1'"), std::string::npos) << quantized;
  EXPECT_NE(program.find("END"), std::string::npos) << program.substr(0, 400);
}

TEST(Driver, ALayerTheNpuCannotHoldRunsOnTheHostWithTheReason) {
  // A parameter SRAM half of 200 bytes holds no 256-byte LUT: the conv with its fused sigmoid,
  // the stand-alone tanh and the softmax (its exponential table) cannot be lowered; every other
  // layer stays on the NPU.
  CompileOptions options = smallNetOptions();
  options.hw->parameterSramBytes = 400;
  CompiledModel compiled = compileModel(makeSmallNet(), options);
  const Graph& g = compiled.model.graph;
  const Partition& partition = compiled.model.partition;
  std::vector<std::string> beyond;
  for (std::size_t n = 0; n < g.nodes().size(); ++n) {
    const std::string& reason = partition.hostReason[n];
    if (reason.rfind("the NPU cannot hold it on 'npu-s': layer '", 0) == 0) {
      beyond.push_back(g.nodes()[n].name);
      EXPECT_NE(reason.find("SRAM too small"), std::string::npos) << reason;
    }
  }
  std::sort(beyond.begin(), beyond.end());
  EXPECT_EQ(beyond, (std::vector<std::string>{"branch_a", "probs", "tanh"}));
  EXPECT_EQ(partition.device[g.nodes().size() - 1], Device::Host);  // probs
  EXPECT_EQ(compiled.programs.size(), compiled.model.npuSegments.size());
  for (std::size_t n = 0; n < g.nodes().size(); ++n) {
    if (g.nodes()[n].name == "conv1" || g.nodes()[n].name == "branch_b") {
      EXPECT_EQ(partition.device[n], Device::Npu) << g.nodes()[n].name;
    }
  }
}

TEST(Driver, UnknownStageNamesEveryStage) {
  CompileOptions options = smallNetOptions();
  options.stages.dumpAfter = {"lowering"};
  std::string error = errorOf([&] { compileModel(makeSmallNet(), options); });
  EXPECT_EQ(error.rfind("--dump-after: unknown stage 'lowering' (stages: infer-shapes, ", 0), 0U)
      << error;
  EXPECT_NE(error.find(", fuse-activations, partition, quantize, codegen, or all)"),
            std::string::npos)
      << error;
}

TEST(Driver, QuantizedGraphVerificationNamesTheOp) {
  CompiledModel compiled = compileModel(makeSmallNet(), smallNetOptions());
  QuantizedGraph graph = compiled.model.npuSegments.front().graph;
  verifyQuantizedGraph(graph);
  // Swap two ops: the second now reads a tensor nothing has written yet.
  ASSERT_GE(graph.ops.size(), 2U);
  std::swap(graph.ops[0], graph.ops[1]);
  std::string error = errorOf([&] { verifyQuantizedGraph(graph); });
  EXPECT_NE(error.find("before anything writes it"), std::string::npos) << error;
  EXPECT_EQ(error.rfind("quantized graph: op '", 0), 0U) << error;
}

}  // namespace
}  // namespace npu::compiler
