// Concat by address (docs/main-job.md): a channel concat's inputs that a conv or a slice makes
// and nothing else reads are stored by their producers straight into the concat's output; the
// concat copies only the rest. Every case runs bit-exact on both engines.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compile_run_verify.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;
using testing::instructionsOf;
using testing::shareQuantization;

TEST(ConcatByAddress, ConvBranchesStoreIntoTheConcat) {
  // Two conv branches (1x1 and 3x3, odd channel counts) joined and read by a conv: both stored in
  // place, the concat has no instructions of its own.
  std::uint64_t seed = 900;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const auto& [h, w, c, k1, k2] : {std::array<std::int64_t, 5>{28, 28, 32, 24, 40},
                                          std::array<std::int64_t, 5>{13, 17, 24, 7, 33}}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(h, w, c);
      const TensorId a = b.conv(x, k1, 0, 1, 1, 1, 0);
      const TensorId d = b.conv(x, k2, 0, 3, 1, 1, 1);
      shareQuantization(b, d, a);
      const TensorId joined = b.concat({a, d});
      b.graph().outputs = {b.conv(joined, 16, 0, 1, 1, 1, 0)};
      const std::string what = fmt::format("{}x{}x{} -> {} | {} on {}", h, w, c, k1, k2, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      EXPECT_EQ(compiled.tensors[a].storedIn, static_cast<std::int64_t>(joined)) << what;
      EXPECT_EQ(compiled.tensors[d].storedIn, static_cast<std::int64_t>(joined)) << what;
      EXPECT_EQ(compiled.tensors[d].address, compiled.tensors[joined].address + k1) << what;
      EXPECT_EQ(compiled.tensors[d].pixelStride, k1 + k2) << what;
      EXPECT_EQ(instructionsOf(compiled, 2), 0U) << what;  // the concat
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(ConcatByAddress, ShuffleUnitSliceAndCascadeStoreIntoTheConcat) {
  // A ShuffleNetV2 unit: the identity half (a slice) and the branch (1x1 -> 3x3 depthwise -> 1x1,
  // a cascade) both stored into the concat; the concat feeds a conv.
  std::uint64_t seed = 950;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const std::int64_t c : {48, 116}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(28, 28, c);
      const TensorId kept = b.slice(x, 0, c / 2);
      const TensorId other = b.slice(x, c / 2, c / 2);
      const TensorId e = b.conv(other, c / 2, 0, 1, 1, 1, 0);
      const TensorId dw = b.conv(e, 0, 1, 3, 1, 1, 1);
      const TensorId branch = b.conv(dw, c / 2, 0, 1, 1, 1, 0);
      shareQuantization(b, branch, kept);
      const TensorId joined = b.concat({kept, branch});
      b.graph().outputs = {b.conv(joined, 32, 0, 1, 1, 1, 0)};
      const std::string what = fmt::format("shuffle unit of {} channels on {}", c, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      EXPECT_EQ(compiled.tensors[kept].storedIn, static_cast<std::int64_t>(joined)) << what;
      EXPECT_EQ(compiled.tensors[branch].storedIn, static_cast<std::int64_t>(joined)) << what;
      EXPECT_TRUE(compiled.tensors[e].onChip) << what;  // the branch still cascades
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(ConcatByAddress, AConcatNothingReadsKeepsItsSpaceUntilItHasRun) {
  // Its output is placed at its first by-address producer; a conv between that producer and the
  // concat once took the same space (the output's last reader was "none"), and the concat's copy
  // of its other input overwrote it (found in review).
  testing::RandomGraphBuilder b(1);
  const TensorId x = b.input(16, 16, 8);
  const TensorId a = b.conv(x, 8, 0, 1, 1, 1, 0);
  shareQuantization(b, a, x);
  const TensorId t = b.conv(x, 8, 0, 3, 1, 1, 1);
  const TensorId joined = b.concat({a, x});
  b.graph().outputs = {b.conv(t, 8, 0, 1, 1, 1, 0)};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_EQ(compiled.tensors[a].storedIn, static_cast<std::int64_t>(joined));
  const auto overlap = [&](TensorId p, TensorId q) {
    const TensorPlacement& u = compiled.tensors[p];
    const TensorPlacement& v = compiled.tensors[q];
    return u.address < v.address + v.bytes && v.address < u.address + u.bytes;
  };
  EXPECT_FALSE(overlap(t, joined));
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "a concat nothing reads"), 0U);
}

TEST(ConcatByAddress, InputsThatMustKeepTheirOwnSpaceAreCopied) {
  // A graph input and a conv output another op also reads keep their own DDR space and are
  // copied by the concat as before; only the third input is stored in place.
  testing::RandomGraphBuilder b(990);
  const TensorId x = b.input(20, 20, 16);
  const TensorId shared = b.conv(x, 16, 0, 1, 1, 1, 0);
  shareQuantization(b, shared, x);
  const TensorId own = b.conv(x, 8, 0, 3, 1, 1, 1);
  shareQuantization(b, own, x);
  const TensorId joined = b.concat({x, shared, own});
  const TensorId reread = b.conv(shared, 8, 0, 1, 1, 1, 0);
  b.graph().outputs = {b.conv(joined, 8, 0, 1, 1, 1, 0), reread};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  EXPECT_EQ(compiled.tensors[x].storedIn, -1);
  EXPECT_EQ(compiled.tensors[shared].storedIn, -1);
  EXPECT_EQ(compiled.tensors[own].storedIn, static_cast<std::int64_t>(joined));
  EXPECT_TRUE(compiled.tensors[shared].ownsDdr());
  EXPECT_FALSE(compiled.tensors[own].ownsDdr());
  EXPECT_GT(instructionsOf(compiled, 2), 0U);  // the concat copies x and `shared`
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "mixed concat"), 0U);
}

TEST(ConcatByAddress, ADenseBlocksConcatsAreViewsOfItsLastOne) {
  // A DenseNet block: layer k reads the concat of the block input and every feature before it
  // (BN as a depthwise 1x1, then a conv); the block's last concat feeds the transition. Every
  // concat is a view of the last one's first channels, every feature is stored into it by its
  // conv, and only the first concat copies the block input (a pool's output) in.
  std::uint64_t seed = 1200;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const auto& [h, c0, growth] :
         {std::array<std::int64_t, 3>{16, 24, 8}, std::array<std::int64_t, 3>{11, 16, 12}}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(2 * h, 2 * h, c0);
      const TensorId pooled = b.pool(x, false, 2, 2, 0);
      std::vector<TensorId> features{pooled};
      std::vector<TensorId> concats;
      std::vector<TensorId> grown;
      for (int layer = 0; layer < 4; ++layer) {
        const TensorId in = layer == 0 ? pooled : b.concat(features);
        if (layer > 0) {
          concats.push_back(in);
        }
        const TensorId bn = b.conv(in, 0, 1, 1, 1, 1, 0);  // depthwise 1x1
        const TensorId f = b.conv(b.conv(bn, 2 * growth, 0, 1, 1, 1, 0), growth, 0, 3, 1, 1, 1);
        shareQuantization(b, f, pooled);
        features.push_back(f);
        grown.push_back(f);
      }
      const TensorId last = b.concat(features);
      b.graph().outputs = {b.conv(last, 16, 0, 1, 1, 1, 0)};
      const std::string what =
          fmt::format("dense block {}x{}, {} + 4 x {} on {}", h, h, c0, growth, hw);
      // Every concat shares the block input's scale (scale alignment does this on import).
      for (const TensorId t : concats) {
        b.graph().tensors[t].scale = b.graph().tensors[pooled].scale;
        b.graph().tensors[t].zeroPoint = b.graph().tensors[pooled].zeroPoint;
      }
      b.graph().tensors[last].scale = b.graph().tensors[pooled].scale;
      b.graph().tensors[last].zeroPoint = b.graph().tensors[pooled].zeroPoint;
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      for (const TensorId t : concats) {
        EXPECT_EQ(compiled.tensors[t].storedIn, static_cast<std::int64_t>(last)) << what;
        EXPECT_EQ(compiled.tensors[t].address, compiled.tensors[last].address) << what;
        EXPECT_EQ(compiled.tensors[t].pixelStride, c0 + 4 * growth) << what;
      }
      for (std::size_t k = 0; k < grown.size(); ++k) {
        EXPECT_EQ(compiled.tensors[grown[k]].storedIn, static_cast<std::int64_t>(last)) << what;
        EXPECT_EQ(compiled.tensors[grown[k]].address,
                  compiled.tensors[last].address + c0 + static_cast<std::uint64_t>(k) * growth)
            << what;
      }
      // Only the first concat moves bytes (the block input); the others and the last have none.
      std::size_t copying = 0;
      for (std::size_t op = 0; op < b.graph().ops.size(); ++op) {
        if (std::holds_alternative<QConcat>(b.graph().ops[op])) {
          copying += instructionsOf(compiled, op) > 0 ? 1 : 0;
        }
      }
      EXPECT_EQ(copying, 1U) << what;
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(ConcatByAddress, AC2fSplitIsStoredIntoItsConcat) {
  // YOLOv8's C2f: cv1's output split in two, the second half read by a bottleneck (two 3x3 convs
  // and, with the shortcut, an add), everything concatenated. cv1 stores into the concat, the
  // halves are its channels there (the bottleneck's conv and add read them in place), and the
  // slices move no bytes. With cv1 read by anything else, it keeps its space and both copy.
  std::uint64_t seed = 1200;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const bool shortcut : {true, false}) {
      for (const bool otherReader : {false, true}) {
        testing::RandomGraphBuilder b(++seed);
        const TensorId x = b.input(20, 24, 16);
        const TensorId cv1 = b.conv(x, 48, 0, 1, 1, 1, 0);  // op 0
        const TensorId y0 = b.slice(cv1, 0, 24);            // op 1
        const TensorId y1 = b.slice(cv1, 24, 24);           // op 2
        const TensorId m1 = b.conv(y1, 24, 0, 3, 1, 1, 1);
        TensorId m = b.conv(m1, 24, 0, 3, 1, 1, 1);
        if (shortcut) {
          shareQuantization(b, m, y1);
          m = b.add(y1, m);
        }
        shareQuantization(b, m, y1);
        const TensorId joined = b.concat({y0, y1, m});
        std::vector<TensorId> outputs{b.conv(joined, 32, 0, 1, 1, 1, 0)};
        if (otherReader) {
          outputs.push_back(b.conv(cv1, 8, 0, 1, 1, 1, 0));
        }
        b.graph().outputs = outputs;
        const std::string what = fmt::format("C2f{}{} on {}", shortcut ? " with shortcut" : "",
                                             otherReader ? ", cv1 read elsewhere" : "", hw);
        const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
        const auto concat = static_cast<std::int64_t>(joined);
        if (otherReader) {
          EXPECT_TRUE(compiled.tensors[cv1].ownsDdr()) << what;
          EXPECT_GT(instructionsOf(compiled, 2), 0U) << what;  // y1 copied
        } else {
          EXPECT_EQ(compiled.tensors[cv1].storedIn, concat) << what;
          EXPECT_EQ(compiled.tensors[y0].storedIn, concat) << what;
          EXPECT_EQ(compiled.tensors[y1].storedIn, concat) << what;
          EXPECT_EQ(compiled.tensors[y1].address, compiled.tensors[joined].address + 24) << what;
          EXPECT_EQ(compiled.tensors[y1].pixelStride, 72) << what;
          EXPECT_EQ(instructionsOf(compiled, 1), 0U) << what;
          EXPECT_EQ(instructionsOf(compiled, 2), 0U) << what;
        }
        EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
      }
    }
  }
}

TEST(ConcatByAddress, ASplitsConcatLivesUntilItsSlicesLastReader) {
  // A half of the split read by a conv after everything that reads the concat: the concat's
  // space (where the half lives) must not be given to a tensor made in between.
  std::uint64_t seed = 1300;
  for (const char* hw : {"npu-s", "npu-l"}) {
    testing::RandomGraphBuilder b(++seed);
    const TensorId x = b.input(16, 16, 16);
    const TensorId cv1 = b.conv(x, 32, 0, 1, 1, 1, 0);
    const TensorId y0 = b.slice(cv1, 0, 16);
    const TensorId y1 = b.slice(cv1, 16, 16);
    const TensorId joined = b.concat({y0, y1});
    const TensorId o1 = b.conv(joined, 32, 0, 1, 1, 1, 0);
    const TensorId o2 = b.conv(o1, 32, 0, 1, 1, 1, 0);  // would take the concat's space
    const TensorId late = b.conv(y1, 8, 0, 1, 1, 1, 0);
    b.graph().outputs = {b.conv(o2, 8, 0, 1, 1, 1, 0), late};
    const std::string what = fmt::format("late reader of a split's half on {}", hw);
    const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
    EXPECT_EQ(compiled.tensors[y1].storedIn, static_cast<std::int64_t>(joined)) << what;
    EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
  }
}

}  // namespace
}  // namespace npu::compiler
