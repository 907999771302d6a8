// Softmax and LayerNorm over channels on the NPU (one NORM per tile of rows): a classifier's
// softmax over its class scores, a per-pixel softmax over a map's channels and a ConvNeXt-style
// block's LayerNorm compile, run bit-exact against golden in both simulator modes and stay close
// to fp32 (tests/data/norm/).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {
namespace {

struct NormCase {
  std::string graph;
  std::string layer;
  std::string kind;
  Engine engine;
};

class NormModel : public ::testing::TestWithParam<NormCase> {};

TEST_P(NormModel, RunsOnTheNpuBitExact) {
  MainJobOptions options;
  options.model =
      std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/norm" / (GetParam().graph + ".yaml");
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  options.engine = GetParam().engine;
  options.maxInputs = 2;
  const MainJobReport r = runMainJob(options);
  EXPECT_TRUE(r.pass());
  EXPECT_EQ(r.bitExactInputs, r.inputs);
  EXPECT_EQ(r.inputs, 2U);
  const auto row = std::find_if(r.layers.begin(), r.layers.end(),
                                [](const LayerRow& l) { return l.layer == GetParam().layer; });
  ASSERT_NE(row, r.layers.end());
  EXPECT_EQ(row->device, "npu");
  EXPECT_EQ(row->kind, GetParam().kind);
  EXPECT_GT(r.outputCosine, 0.99);
  // A softmax's output quantization is NORM's own, and what shares it (a pool after it) takes
  // it too: nothing is requantized.
  for (const LayerRow& l : r.layers) {
    EXPECT_EQ(l.layer.find("#requant"), std::string::npos) << l.layer;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Graphs, NormModel,
    ::testing::Values(NormCase{"softmax_classifier", "probs", "softmax", Engine::Functional},
                      NormCase{"softmax_classifier", "probs", "softmax", Engine::Timed},
                      NormCase{"softmax_map", "probs", "softmax", Engine::Functional},
                      NormCase{"softmax_map", "probs", "softmax", Engine::Timed},
                      NormCase{"softmax_pool", "probs", "softmax", Engine::Timed},
                      NormCase{"layernorm_block", "norm", "layernorm", Engine::Functional},
                      NormCase{"layernorm_block", "norm", "layernorm", Engine::Timed}),
    [](const ::testing::TestParamInfo<NormCase>& info) {
      return info.param.graph + (info.param.engine == Engine::Timed ? "_timed" : "_functional");
    });

}  // namespace
}  // namespace npu::runtime
