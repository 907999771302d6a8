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

TEST(SpaceToDepth, AStridedSliceOfWholePixelsPicksItsPixelsInSram) {
  // A column-strided slice of whole pixels outside a space-to-depth loads row spans densely and
  // picks every colStep-th pixel with a 1x1 POOL of that column stride (not a burst a pixel).
  std::uint64_t seed = 970;
  for (const std::int64_t step : {2, 3}) {
    for (const std::int64_t c : {3, 8}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(20, 31, c);
      const TensorId y = phase(b, x, 1, 1);
      std::get<QSlice>(b.graph().ops.back()).colStep = step;
      b.graph().tensors[y].shape[2] = (31 - 1 - 1) / step + 1;
      b.graph().outputs = {b.conv(y, 8, 0, 1, 1, 1, 0)};
      const CompiledProgram compiled =
          generateProgram(b.graph(), config("npu-s"), b.randomInputs());
      bool picked = false;
      for (const isa::Instruction& instruction : compiled.program.instructions) {
        if (const auto* pool = std::get_if<isa::Pool>(&instruction)) {
          picked = picked || pool->sw == step;
        }
      }
      EXPECT_TRUE(picked) << "step " << step << ", C = " << c;
      EXPECT_GT(compileRunVerify(b, config("npu-s"), "strided slice"), 0U);
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
