// Softmax over channels on the NPU (one NORM per tile of rows): a classifier's softmax over its
// class scores and a per-pixel softmax over a map's channels compile, run bit-exact against
// golden in both simulator modes and stay close to fp32 (tests/data/norm/).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {
namespace {

struct SoftmaxCase {
  std::string graph;
  Engine engine;
};

class SoftmaxModel : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(SoftmaxModel, RunsOnTheNpuBitExact) {
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
                                [](const LayerRow& l) { return l.layer == "probs"; });
  ASSERT_NE(row, r.layers.end());
  EXPECT_EQ(row->device, "npu");
  EXPECT_EQ(row->kind, "softmax");
  EXPECT_GT(r.outputCosine, 0.99);
}

INSTANTIATE_TEST_SUITE_P(Graphs, SoftmaxModel,
                         ::testing::Values(SoftmaxCase{"softmax_classifier", Engine::Functional},
                                           SoftmaxCase{"softmax_classifier", Engine::Timed},
                                           SoftmaxCase{"softmax_map", Engine::Functional},
                                           SoftmaxCase{"softmax_map", Engine::Timed}),
                         [](const ::testing::TestParamInfo<SoftmaxCase>& info) {
                           return info.param.graph +
                                  (info.param.engine == Engine::Timed ? "_timed" : "_functional");
                         });

}  // namespace
}  // namespace npu::runtime
