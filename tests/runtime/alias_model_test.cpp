// Free aliases on the NPU under the default strategy (issue 39): reshapes and transposes that
// keep the NHWC bytes run inside one NPU segment, bit-exact against golden in both simulator
// modes, and none of them costs an instruction where an alias that changes the NHWC shape can
// have its copy made in place; where it cannot (its output a graph output, its input read by
// another layer), the copy moves the bytes, bit-exact too (tests/data/aliases/).
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
  /// How many of them move bytes (have instructions).
  std::size_t moving = 0;
};

class AliasModel : public ::testing::TestWithParam<AliasCase> {};

TEST_P(AliasModel, IsOneNpuSegmentBitExactAndOnlyCopiesThatMustMoveBytes) {
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
  std::size_t moving = 0;
  for (const LayerRow& l : r.layers) {
    EXPECT_EQ(l.device, "npu") << l.layer;
    if (l.layer.find("#copy") != std::string::npos) {
      ++copies;
      moving += l.instructions > 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(copies, GetParam().copies);
  EXPECT_EQ(moving, GetParam().moving) << "alias copies that move bytes";
}

INSTANTIATE_TEST_SUITE_P(Graphs, AliasModel,
                         ::testing::Values(AliasCase{"free_aliases", Engine::Functional, 4, 0},
                                           AliasCase{"free_aliases", Engine::Timed, 4, 0},
                                           AliasCase{"input_alias", Engine::Functional, 3, 0},
                                           AliasCase{"input_alias", Engine::Timed, 3, 0},
                                           AliasCase{"copied_alias", Engine::Functional, 1, 1},
                                           AliasCase{"copied_alias", Engine::Timed, 1, 1}),
                         [](const ::testing::TestParamInfo<AliasCase>& info) {
                           return info.param.graph +
                                  (info.param.engine == Engine::Timed ? "_timed" : "_functional");
                         });

}  // namespace
}  // namespace npu::runtime
