// Free aliases on the NPU under the default strategy (issue 39): reshapes and transposes that
// keep the NHWC bytes run inside one NPU segment, bit-exact against golden in both simulator
// modes, and none of them costs an instruction: where an alias changes the NHWC shape, its copy
// is made in place (tests/data/aliases/).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "npu/runtime/main_job.h"

namespace npu::runtime {
namespace {

struct AliasCase {
  std::string graph;
  Engine engine = Engine::Functional;
  /// The aliases' copies the graph needs (layers named "<alias>#copy").
  std::size_t copies = 0;
};

class AliasModel : public ::testing::TestWithParam<AliasCase> {};

TEST_P(AliasModel, IsOneNpuSegmentBitExactAndNoAliasMovesAByte) {
  const std::filesystem::path data = std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/aliases";
  MainJobOptions options;
  options.model = data / (GetParam().graph + ".yaml");
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  options.engine = GetParam().engine;
  options.maxInputs = 2;
  const MainJobReport r = runMainJob(options);
  EXPECT_TRUE(r.pass());
  EXPECT_EQ(r.inputs, 2U);
  EXPECT_EQ(r.bitExactInputs, r.inputs);
  EXPECT_EQ(r.npuSegments, 1);
  EXPECT_EQ(r.hostSegments, 0);
  std::size_t copies = 0;
  for (const LayerRow& l : r.layers) {
    EXPECT_EQ(l.device, "npu") << l.layer;
    if (l.layer.find("#copy") != std::string::npos) {
      ++copies;
      EXPECT_EQ(l.instructions, 0U) << l.layer << " copies its alias's bytes";
    }
  }
  EXPECT_EQ(copies, GetParam().copies);
}

INSTANTIATE_TEST_SUITE_P(Graphs, AliasModel,
                         ::testing::Values(AliasCase{"free_aliases", Engine::Functional, 4},
                                           AliasCase{"free_aliases", Engine::Timed, 4},
                                           AliasCase{"input_alias", Engine::Functional, 3},
                                           AliasCase{"input_alias", Engine::Timed, 3}),
                         [](const ::testing::TestParamInfo<AliasCase>& info) {
                           return info.param.graph +
                                  (info.param.engine == Engine::Timed ? "_timed" : "_functional");
                         });

}  // namespace
}  // namespace npu::runtime
