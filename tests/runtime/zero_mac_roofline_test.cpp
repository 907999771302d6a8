// Zero-MAC ops (pools, concat, upsample, broadcast and element-wise ops) run within 1.5x of their
// roofline bound on npu-s, bit-exact, the channel shuffle within 2x: one small graph of each kind
// (tests/data/zero_mac/).
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {
namespace {

struct ZeroMacCase {
  std::string graph;
  /// The op under test (the graphs' other layers only feed it).
  std::string layer;
  std::string kind;
  /// The bound the op must meet, in multiples of its roofline bound.
  double limit = 1.5;
};

void PrintTo(const ZeroMacCase& c, std::ostream* os) {
  *os << c.graph;
}

class ZeroMacRoofline : public ::testing::TestWithParam<ZeroMacCase> {};

TEST_P(ZeroMacRoofline, WithinOneAndAHalfTimesTheBound) {
  const ZeroMacCase& c = GetParam();
  MainJobOptions options;
  options.model =
      std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/zero_mac" / (c.graph + ".yaml");
  options.hw = std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml";
  options.engine = Engine::Timed;
  options.maxInputs = 1;
  const MainJobReport r = runMainJob(options);
  EXPECT_TRUE(r.pass());
  EXPECT_EQ(r.bitExactInputs, 1U);
  const auto row = std::find_if(r.layers.begin(), r.layers.end(),
                                [&](const LayerRow& l) { return l.layer == c.layer; });
  ASSERT_NE(row, r.layers.end()) << c.layer;
  EXPECT_EQ(row->device, "npu");
  EXPECT_EQ(row->kind, c.kind);
  EXPECT_EQ(row->macs, 0U);
  ASSERT_TRUE(row->rooflineRatio().has_value());
  // The bound: max(DDR bytes / DDR bytes per cycle, vector elements / vector width), the
  // layer's own bytes and elements (layer_stats.h), against the cycles the timed run gave it.
  EXPECT_GT(row->rooflineCycles, 0.0);
  EXPECT_LE(*row->rooflineRatio(), c.limit)
      << c.layer << ": " << row->cycles << " cycles, bound " << row->rooflineCycles;
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ZeroMacRoofline,
    ::testing::Values(ZeroMacCase{"global_pool", "pool", "globalavgpool"},
                      ZeroMacCase{"global_pool_7x7", "pool", "globalavgpool"},
                      ZeroMacCase{"max_pool", "pool", "maxpool"},
                      ZeroMacCase{"avg_pool", "pool", "avgpool"},
                      ZeroMacCase{"concat", "cat", "concat"},
                      ZeroMacCase{"upsample", "up", "upsample"},
                      ZeroMacCase{"broadcast_mul", "m", "mul"}, ZeroMacCase{"add", "s", "add"},
                      // Its CONVs keep up with the DDR, but each output block is stored as runs
                      // of 32 bytes, half a burst: the stores alone cost 2x their bytes.
                      ZeroMacCase{"shuffle", "shuffle", "shuffle", 2.0}),
    [](const ::testing::TestParamInfo<ZeroMacCase>& info) { return info.param.graph; });

}  // namespace
}  // namespace npu::runtime
