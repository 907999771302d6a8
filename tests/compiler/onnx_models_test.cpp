// Real exporter output: the committed PyTorch-exported models import, run within 1e-4 of PyTorch
// before and after the passes, and the passes leave the expected ops.
#include <gtest/gtest.h>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/ir/verify.h"
#include "npu/compiler/passes/pipeline.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::loadFloatNpy;
using testing::opSequence;
using testing::relativeError;
using testing::runSingle;
using testing::sourcePath;

struct ModelCase {
  const char* name;
  /// The ops left after the passes.
  const char* opsAfterPasses;
};

/// Names the case in test listings (ctest shows the parameter).
void PrintTo(const ModelCase& c, std::ostream* os) {
  *os << c.name;
}

class ExportedModel : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ExportedModel, MatchesPyTorchBeforeAndAfterPasses) {
  std::filesystem::path dir = sourcePath("tests/compiler/models");
  std::string name = GetParam().name;
  Graph graph = importOnnx(dir / (name + ".onnx"));
  golden::FloatTensor x = loadFloatNpy(dir / (name + ".input.npy"));
  golden::FloatTensor expected = loadFloatNpy(dir / (name + ".output.npy"));

  golden::FloatTensor imported = runSingle(graph, x);
  EXPECT_EQ(imported.shape, expected.shape);
  EXPECT_LT(relativeError(imported, expected), 1e-4) << "as imported";

  PipelineOptions options;
  options.verifyEach = true;
  runFrontEndPasses(graph, options);
  golden::FloatTensor optimized = runSingle(graph, x);
  EXPECT_LT(relativeError(optimized, expected), 1e-4) << "after the passes";
  EXPECT_EQ(opSequence(graph), GetParam().opsAfterPasses);
}

INSTANTIATE_TEST_SUITE_P(
    Models, ExportedModel,
    ::testing::Values(
        ModelCase{"convnet",
                  "Conv MaxPool Conv Conv Add AveragePool GlobalAveragePool Conv Reshape"},
        ModelCase{"activations", "Conv Conv Conv Conv Conv Conv Conv Conv Concat Softmax"},
        // Opset 11 Softmax normalises a flattened tail: PyTorch transposes the axis last.
        ModelCase{"activations_opset11",
                  "Conv Conv Conv Conv Conv Conv Conv Conv Concat Transpose Softmax Transpose"},
        ModelCase{"shapes", "Conv Mul Sub Concat Div Slice Conv Reshape"},
        ModelCase{"upsampling", "ConvTranspose Relu Resize Pad Conv"},
        ModelCase{"legacy", "Resize Pad Clip Flatten Softmax"},
        ModelCase{"external",
                  "Conv MaxPool Conv Conv Add AveragePool GlobalAveragePool Conv Reshape"},
        ModelCase{"handmade", "Mul Clip"},
        // The host-only ops of the model-coverage work: reductions, unary math, comparisons,
        // Where, Split, Tile, Expand, norms, DepthToSpace, batched MatMul (opsets 13, 17, 18).
        ModelCase{
            "hostops",
            "Abs Slice Round Slice Slice Slice Slice Slice GlobalAveragePool GlobalAveragePool "
            "Flatten ReduceSum GlobalMaxPool Flatten ReduceMin ReduceL2 Add Pow Pow Mul Add Add "
            "Sqrt "
            "Add Add Reciprocal Add Mul Pow Add Mul Exp Log Add Neg Mul Add Mul Add Mul Floor Ceil "
            "Mul Add Round Mul Add Erf Mish Mul Add Softplus Mul Add PRelu Min Max Mul Add Greater "
            "Mul Where Equal Where Mul Add Less Sub Mul Where Greater Less Not And Where Mul Add "
            "Expand Sub Slice Expand Tile Mul Add Sub Slice Gather Gather DepthToSpace "
            "Reshape Reshape Transpose Reshape Mul Add Gather Transpose MatMul Mul Softmax "
            "LogSoftmax "
            "Mul Add ArgMax Cast Slice Add InstanceNormalization Reshape InstanceNormalization "
            // merge-channel-affines: GroupNorm's per-channel scale and shift as one BatchNorm.
            "Reshape BatchNormalization Mul Add Reshape Transpose Reshape Reshape Reshape Reshape "
            "Reshape "
            "Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape "
            "Reshape "
            "Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape Concat"},
        ModelCase{
            "hostops_opset17",
            // The ConvNeXt block's NHWC region runs on the NCHW tensor (sink-nhwc-transposes):
            // its LayerNorm spelled out over the channel axis and fused back into one
            // ChannelLayerNorm, its Linears 1x1 convs with the LayerNorm's affine, the bias adds
            // and the layer scale folded in. The token branch (patch embedding, class token,
            // LayerNorm, Linear + GELU) runs on its [1, C, T, 1] twin (lift-token-tensors): the
            // LayerNorm a ChannelLayerNorm, the Linear a 1x1 conv with GELU fused, the tokens
            // rebuilt by a Transpose and a Reshape where the host reads them.
            "Conv Reshape Concat Add ChannelLayerNorm Conv Transpose LayerNormalization "
            "LayerNormalization Conv ChannelLayerNorm Conv Conv Add Flatten Flatten Flatten "
            "Reshape "
            "Concat"},
        ModelCase{
            "handmade_opset18",
            "GlobalAveragePool Flatten ReduceMean ReduceSum ReduceMax GroupNormalization Slice "
            "Slice "
            "Slice Mul Reshape Transpose MatMul Add Tile Slice Slice Slice Slice Concat "
            "DepthToSpace Expand Greater "
            "Less Not And Max Equal Where Where Mul Where ArgMax Cast Softmax LogSoftmax Reshape "
            "Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape Reshape "
            "Reshape "
            "Reshape Reshape Reshape Reshape Reshape Concat"}),
    [](const ::testing::TestParamInfo<ModelCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace npu::compiler
