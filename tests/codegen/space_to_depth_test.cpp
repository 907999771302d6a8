// Space-to-depth as one conv (compiler/codegen/space_to_depth_conv.cpp): YOLOv5's Focus, four
// stride-2 phase slices concatenated along channels, becomes a 2x2 stride-2 conv with 0/1
// weights whose output equals the concat's byte for byte; patterns that are not exactly that
// stay as they are.
#include <gtest/gtest.h>

#include <array>
#include <variant>

#include "compile_run_verify.h"
#include "npu/compiler/codegen/space_to_depth_conv.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;

/// Rows rowBegin, rowBegin + 2, ... and columns likewise of `x` (whole pixels).
TensorId phase(testing::RandomGraphBuilder& b, TensorId x, std::int64_t row, std::int64_t col) {
  const QTensor in = b.at(x);
  const TensorId out =
      b.tensor(in.shape[1] / 2, in.shape[2] / 2, in.shape[3], in.scale, in.zeroPoint);
  QSlice op;
  op.name = "phase" + std::to_string(b.graph().ops.size());
  op.input = x;
  op.output = out;
  op.rowBegin = row;
  op.rowStep = 2;
  op.colBegin = col;
  op.colStep = 2;
  b.graph().ops.emplace_back(op);
  return out;
}

/// Focus: the four phases of `x` in YOLOv5's order (or `order`), concatenated, then a 3x3 conv.
TensorId focus(testing::RandomGraphBuilder& b, TensorId x,
               const std::array<std::array<std::int64_t, 2>, 4>& order) {
  std::vector<TensorId> parts;
  for (const auto& [row, col] : order) {
    parts.push_back(phase(b, x, row, col));
  }
  return b.conv(b.concat(parts), 16, 0, 3, 1, 1, 1);
}

TEST(SpaceToDepth, FocusBecomesOneConvWithTheConcatsBytes) {
  const std::array<std::array<std::array<std::int64_t, 2>, 4>, 2> orders{
      {{{{0, 0}, {1, 0}, {0, 1}, {1, 1}}}, {{{1, 1}, {0, 0}, {1, 0}, {0, 1}}}}};
  std::uint64_t seed = 900;
  for (const auto& order : orders) {
    for (const std::int64_t c : {3, 16, 20}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(18, 22, c);
      b.graph().outputs = {focus(b, x, order)};
      const QuantizedGraph before = b.graph();
      const std::vector<golden::Int8Tensor> inputs = b.randomInputs();
      const std::vector<std::size_t> origin = spaceToDepthAsConv(b.graph());
      const QuantizedGraph& after = b.graph();
      ASSERT_EQ(after.ops.size(), 2U);
      EXPECT_EQ(origin, (std::vector<std::size_t>{4, 5}));  // the concat's index, the conv's
      const auto* conv = std::get_if<QConv>(&after.ops[0]);
      ASSERT_NE(conv, nullptr);
      EXPECT_TRUE(conv->movesBytes);
      EXPECT_EQ(opOutput(after.ops[0]), opOutput(before.ops[4]));
      // The conv's output is the concat's, and everything after it follows.
      const auto expected = runQuantizedGraphGolden(before, inputs);
      const auto got = runQuantizedGraphGolden(after, inputs);
      const TensorId joined = opOutput(before.ops[4]);
      EXPECT_EQ(got[joined].data, expected[joined].data) << "C = " << c;
      EXPECT_EQ(got[before.outputs[0]].data, expected[before.outputs[0]].data);
      EXPECT_GT(compileRunVerify(b, config("npu-s"), "focus as conv"), 0U);
    }
  }
}

TEST(SpaceToDepth, OtherPatternsStay) {
  // A phase read by something else too, the same phase twice, a channel window: unchanged.
  std::uint64_t seed = 950;
  for (int variant = 0; variant < 3; ++variant) {
    testing::RandomGraphBuilder b(++seed);
    const TensorId x = b.input(8, 8, 4);
    std::vector<TensorId> parts{phase(b, x, 0, 0), phase(b, x, 1, 0), phase(b, x, 0, 1),
                                phase(b, x, variant == 1 ? 0 : 1, 1)};
    if (variant == 2) {
      std::get<QSlice>(b.graph().ops[3]).channelBegin = 1;
      b.graph().tensors[parts[3]].shape[3] = 3;
    }
    const TensorId joined = b.concat(parts);
    b.graph().outputs = {joined};
    if (variant == 0) {
      b.graph().outputs.push_back(parts[2]);
    }
    const std::size_t ops = b.graph().ops.size();
    spaceToDepthAsConv(b.graph());
    EXPECT_EQ(b.graph().ops.size(), ops) << "variant " << variant;
  }
}

}  // namespace
}  // namespace npu::compiler
