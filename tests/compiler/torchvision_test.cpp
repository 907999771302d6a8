// ResNet-18 and MobileNetV2 (torchvision, random weights, re-estimated BN statistics): the fp32
// interpreter matches PyTorch within 1e-4 relative error before and after the passes.
#include <gtest/gtest.h>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/passes/pipeline.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::loadFloatNpy;
using testing::relativeError;
using testing::runSingle;

class TorchvisionNetwork : public ::testing::TestWithParam<const char*> {};

TEST_P(TorchvisionNetwork, MatchesPyTorchBeforeAndAfterPasses) {
  std::filesystem::path dir(NPU_TEST_MODEL_DIR);
  std::string name = GetParam();
  Graph graph = importOnnx(dir / (name + ".onnx"));
  golden::FloatTensor x = loadFloatNpy(dir / (name + ".input.npy"));
  golden::FloatTensor expected = loadFloatNpy(dir / (name + ".output.npy"));

  double imported = relativeError(runSingle(graph, x), expected);
  EXPECT_LT(imported, 1e-4) << "as imported";
  RecordProperty("relative_error_imported", std::to_string(imported));

  PipelineOptions options;
  options.verifyEach = true;
  runFrontEndPasses(graph, options);
  for (const Node& node : graph.nodes()) {
    EXPECT_NE(node.op, OpKind::BatchNormalization) << node.name << " was not folded";
    EXPECT_NE(node.op, OpKind::Relu) << node.name << " was not fused";
    EXPECT_NE(node.op, OpKind::Clip) << node.name << " was not fused";
    EXPECT_NE(node.op, OpKind::Gemm) << node.name << " was not converted";
  }
  double optimized = relativeError(runSingle(graph, x), expected);
  EXPECT_LT(optimized, 1e-4) << "after the passes";
  RecordProperty("relative_error_after_passes", std::to_string(optimized));
}

INSTANTIATE_TEST_SUITE_P(Networks, TorchvisionNetwork,
                         ::testing::Values("resnet18", "mobilenet_v2"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace npu::compiler
