// Channel shuffles as sub-pixel CONVs (docs/main-job.md, "Channel shuffle"): ShuffleNetV2's
// concat -> shuffle -> split runs as one pass that reads the concat's inputs where they are and
// writes the split's halves densely; the concat and the slices move no bytes. Every case runs
// bit-exact on both engines.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compile_run_verify.h"
#include "npu/compiler/codegen/shuffle_plan.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;
using testing::instructionsOf;
using testing::shareQuantization;

/// Index of the op that makes `id`.
std::size_t producerOf(const QuantizedGraph& graph, TensorId id) {
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (opOutput(graph.ops[i]) == id) {
      return i;
    }
  }
  return graph.ops.size();
}

TEST(ShufflePlan, ShuffleNetUnitsReadTheConcatsInputsAndWriteTheHalves) {
  // Two chained ShuffleNetV2 units (the second's identity half is the first's first half), with
  // halves of 24 (not a multiple of the array's rows), 48 and 58 channels; the second unit's
  // shuffle output is read whole by a conv (no split: one part).
  std::uint64_t seed = 1400;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const std::int64_t c : {48, 96, 116}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(13, 11, c);
      const TensorId stem = b.conv(x, c, 0, 1, 1, 1, 0);
      TensorId kept = b.slice(stem, 0, c / 2);
      TensorId other = b.slice(stem, c / 2, c / 2);
      std::vector<TensorId> concats;
      std::vector<TensorId> shuffles;
      std::vector<TensorId> halves;
      for (int unit = 0; unit < 2; ++unit) {
        const TensorId e = b.conv(other, c / 2, 0, 1, 1, 1, 0);
        const TensorId dw = b.conv(e, 0, 1, 3, 1, 1, 1);
        const TensorId branch = b.conv(dw, c / 2, 0, 1, 1, 1, 0);
        shareQuantization(b, branch, kept);
        concats.push_back(b.concat({kept, branch}));
        shuffles.push_back(b.shuffle(concats.back(), 2));
        if (unit == 0) {
          kept = b.slice(shuffles.back(), 0, c / 2);
          other = b.slice(shuffles.back(), c / 2, c / 2);
          halves = {kept, other};
        }
      }
      b.graph().outputs = {b.conv(shuffles.back(), 16, 0, 1, 1, 1, 0)};
      const std::string what = fmt::format("two shuffle units of {} channels on {}", c, hw);
      const QuantizedGraph& graph = b.graph();
      const CompiledProgram compiled = generateProgram(graph, config(hw), b.randomInputs());
      for (const TensorId joined : concats) {
        EXPECT_TRUE(compiled.tensors[joined].onChip) << what;  // never assembled
        EXPECT_EQ(instructionsOf(compiled, producerOf(graph, joined)), 0U) << what;
      }
      EXPECT_TRUE(compiled.tensors[shuffles[0]].onChip) << what;  // written as its halves
      EXPECT_FALSE(compiled.tensors[shuffles[1]].onChip) << what;
      for (const TensorId half : halves) {
        EXPECT_TRUE(compiled.tensors[half].ownsDdr()) << what;
        EXPECT_EQ(instructionsOf(compiled, producerOf(graph, half)), 0U) << what;
      }
      for (const TensorId shuffled : shuffles) {
        EXPECT_GT(instructionsOf(compiled, producerOf(graph, shuffled)), 0U) << what;
      }
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(ShufflePlan, AConcatReadElsewhereOrAnUnevenSplitKeepsItsBytes) {
  // The concat also read by a conv: assembled as before, the shuffle reads it; the output split
  // unevenly: assembled, the slices copy.
  testing::RandomGraphBuilder b(1500);
  const TensorId x = b.input(9, 10, 32);
  const TensorId a = b.conv(x, 16, 0, 1, 1, 1, 0);
  const TensorId d = b.conv(x, 16, 0, 3, 1, 1, 1);
  shareQuantization(b, d, a);
  const TensorId joined = b.concat({a, d});
  const TensorId shuffled = b.shuffle(joined, 2);
  const TensorId first = b.slice(shuffled, 0, 8);
  const TensorId rest = b.slice(shuffled, 8, 24);
  b.graph().outputs = {b.conv(joined, 8, 0, 1, 1, 1, 0), b.conv(first, 8, 0, 1, 1, 1, 0),
                       b.conv(rest, 8, 0, 3, 1, 1, 1)};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_FALSE(compiled.tensors[joined].onChip);
  EXPECT_FALSE(compiled.tensors[shuffled].onChip);
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "a concat read elsewhere, an uneven split"), 0U);
}

TEST(ShufflePlan, RandomConcatShuffleSplitsAreBitExact) {
  // Random concat -> shuffle -> split graphs: 2-4 groups of 1-40 channels, the output read whole
  // or split in 2-4 equal slices, the concat's inputs convs or graph inputs, sometimes the concat
  // or a group input read by another conv too; every plan the graph allows (or none) must run
  // bit-exact on both engines, on npu-s and npu-l.
  int planned = 0;
  for (std::uint64_t seed = 1600; seed < 1640; ++seed) {
    testing::RandomGraphBuilder b(seed);
    const std::int64_t groups = b.pick(2, 4);
    const std::int64_t perGroup = b.pick(1, 40);
    const std::int64_t c = groups * perGroup;
    const std::int64_t h = b.pick(1, 20), w = b.pick(1, 20);
    const TensorId x = b.input(h, w, 8);
    std::vector<TensorId> inputs;
    for (std::int64_t g = 0; g < groups; ++g) {
      const TensorId made = b.conv(x, perGroup, 0, 1, 1, 1, 0);
      if (!inputs.empty()) {
        shareQuantization(b, made, inputs.front());
      }
      inputs.push_back(made);
    }
    const TensorId joined = b.concat(inputs);
    const TensorId shuffled = b.shuffle(joined, groups);
    std::vector<TensorId> outputs;
    const std::int64_t parts = b.pick(1, 4);
    if (parts > 1 && c % parts == 0) {
      for (std::int64_t k = 0; k < parts; ++k) {
        outputs.push_back(b.conv(b.slice(shuffled, k * (c / parts), c / parts), 4, 0, 1, 1, 1, 0));
      }
    } else {
      outputs.push_back(b.conv(shuffled, 4, 0, 1, 1, 1, 0));
    }
    if (b.pick(0, 3) == 0) {
      outputs.push_back(b.conv(b.pick(0, 1) == 0 ? joined : inputs.back(), 4, 0, 1, 1, 1, 0));
    }
    b.graph().outputs = outputs;
    for (const char* hw : {"npu-s", "npu-l"}) {
      const std::string what = fmt::format("seed {}: {} groups of {}, {}x{}, {} parts on {}", seed,
                                           groups, perGroup, h, w, parts, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      planned += compiled.tensors[joined].onChip || compiled.tensors[shuffled].onChip ? 1 : 0;
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
  EXPECT_GT(planned, 20);  // the plans were exercised, not only the fallbacks
}

TEST(ShufflePlan, LayoutsFitTheFieldsAndBeatTheDensePermutation) {
  // ShuffleNetV2 x0.5's shapes on npu-s: halves of 24, 48 and 96 channels written as two parts
  // from the two concat inputs. Read where they are, the inputs are interleaved by the LOADs in
  // chunks of 8 channels, so one array step makes 16 output channels: c / 16 steps a pixel,
  // whole pixels in the output SRAM. Read from the assembled concat, the sub-pixel CONVs take
  // two steps (one a group) for each 16 channels: c / 8; halves of 24 are no whole number of
  // 16-channel blocks, so they are stored out of whole pixels.
  const isa::NpuConfig hw = config("npu-s");
  for (const std::int64_t c : {48, 96, 192}) {
    const std::optional<ShuffleLayout> interleaved =
        chooseShuffleLayout(hw, 28 * 28, c, 2, true, 2);
    ASSERT_TRUE(interleaved) << c;
    EXPECT_TRUE(interleaved->interleaved) << c;
    EXPECT_EQ(interleaved->sub, 8) << c;
    EXPECT_TRUE(interleaved->wholePixels) << c;
    EXPECT_EQ(interleaved->steps, c / 16) << c;
    // Tiles of equal size but for the last, which is short by less than one pixel a tile.
    const std::int64_t tiles = (28 * 28 + interleaved->tile - 1) / interleaved->tile;
    EXPECT_GT(28 * 28 - (tiles - 1) * interleaved->tile, interleaved->tile - tiles) << c;
    const std::optional<ShuffleLayout> layout = chooseShuffleLayout(hw, 28 * 28, c, 2, false, 2);
    ASSERT_TRUE(layout) << c;
    EXPECT_FALSE(layout->interleaved) << c;
    EXPECT_EQ(layout->wholePixels, (c / 2) % (2 * layout->sub) != 0) << c;
    EXPECT_TRUE(layout->wholePixels || c != 48) << c;
    EXPECT_LT(layout->steps, shuffleDenseSteps(hw, c)) << c;
    EXPECT_EQ(layout->steps, c / 8) << c;
  }
  // A prime group size still has the one-channel sub-pixel; groups past CONV's kernel do not,
  // unless the LOADs interleave them (16 groups of one channel fill the array's 16 rows).
  EXPECT_TRUE(chooseShuffleLayout(hw, 100, 2 * 13, 2, false, 1));
  EXPECT_FALSE(chooseShuffleLayout(hw, 100, 16 * 3, 16, false, 1));
  const std::optional<ShuffleLayout> many = chooseShuffleLayout(hw, 100, 16 * 3, 16, true, 1);
  ASSERT_TRUE(many);
  EXPECT_TRUE(many->interleaved);
  EXPECT_EQ(many->steps, 3);
  EXPECT_FALSE(chooseShuffleLayout(hw, 100, 17 * 3, 17, true, 1));  // more groups than rows
}

}  // namespace
}  // namespace npu::compiler
