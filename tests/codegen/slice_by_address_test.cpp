// Slice by address (docs/main-job.md): a channel slice whose only reader is a conv is read in
// place, with its source's pixel stride, and moves no bytes. Every case runs bit-exact on both
// engines.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compile_run_verify.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;
using testing::instructionsOf;

TEST(SliceByAddress, ConvsReadTheirSliceInPlace) {
  // A lone conv (3x3 stride 2 with padding; 1x1 over many columns) and a cascade (the ShuffleNet
  // branch: 1x1 -> 3x3 depthwise -> 1x1) each read a channel slice of a conv's output in place.
  std::uint64_t seed = 1200;
  for (const char* hw : {"npu-s", "npu-l"}) {
    for (const std::int64_t c : {48, 116}) {
      testing::RandomGraphBuilder b(++seed);
      const TensorId x = b.input(28, 30, 16);
      const TensorId y = b.conv(x, c, 0, 1, 1, 1, 0);             // op 0
      const TensorId first = b.slice(y, 0, c / 2);                // op 1
      const TensorId second = b.slice(y, c / 2, c / 2);           // op 2
      const TensorId strided = b.conv(first, 24, 0, 3, 2, 1, 1);  // op 3
      const TensorId e = b.conv(second, c / 2, 0, 1, 1, 1, 0);    // op 4
      const TensorId branch = b.conv(b.conv(e, 0, 1, 3, 1, 1, 1), 32, 0, 1, 1, 1, 0);
      b.graph().outputs = {strided, branch};
      const std::string what = fmt::format("{} channels on {}", c, hw);
      const CompiledProgram compiled = generateProgram(b.graph(), config(hw), b.randomInputs());
      for (const TensorId view : {first, second}) {
        EXPECT_EQ(compiled.tensors[view].storedIn, static_cast<std::int64_t>(y)) << what;
        EXPECT_EQ(compiled.tensors[view].pixelStride, c) << what;
      }
      EXPECT_EQ(compiled.tensors[second].address, compiled.tensors[y].address + c / 2) << what;
      EXPECT_EQ(instructionsOf(compiled, 1), 0U) << what;
      EXPECT_EQ(instructionsOf(compiled, 2), 0U) << what;
      EXPECT_TRUE(compiled.tensors[e].onChip) << what;  // the branch still cascades
      EXPECT_GT(compileRunVerify(b, config(hw), what), 0U);
    }
  }
}

TEST(SliceByAddress, SlicesThatAlsoCropAreCopied) {
  // Channels and the first 12 of 16 columns (or rows): the reader's row stride would be its own
  // width times the source's pixel, wrong for a view; such slices were once read in place
  // (found in review).
  for (const bool columns : {true, false}) {
    testing::RandomGraphBuilder b(columns ? 1250 : 1251);
    const TensorId x = b.input(16, 16, 16);
    const TensorId y = b.conv(x, 32, 0, 1, 1, 1, 0);
    const QTensor source = b.at(y);
    const TensorId cropped =
        b.tensor(columns ? 16 : 12, columns ? 12 : 16, 16, source.scale, source.zeroPoint);
    QSlice crop;
    crop.name = "crop";
    crop.input = y;
    crop.output = cropped;
    crop.channelBegin = 8;
    b.graph().ops.emplace_back(crop);
    const TensorId e = b.conv(cropped, 32, 0, 1, 1, 1, 0);
    b.graph().outputs = {b.conv(b.conv(e, 0, 1, 3, 1, 1, 1), 16, 0, 1, 1, 1, 0),
                         b.conv(y, 8, 0, 3, 1, 1, 1)};
    const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
    EXPECT_EQ(compiled.tensors[cropped].storedIn, -1) << columns;
    EXPECT_GT(compileRunVerify(b, config("npu-s"), columns ? "column crop" : "row crop"), 0U);
  }
}

TEST(SliceByAddress, SlicesWithOtherReadersOrStepsAreCopied) {
  // A slice two ops read, a slice of rows (a Focus stem's phase) and a slice a pool reads are
  // copied as before.
  testing::RandomGraphBuilder b(1300);
  const TensorId x = b.input(16, 16, 32);
  const TensorId y = b.conv(x, 32, 0, 1, 1, 1, 0);
  const TensorId shared = b.slice(y, 0, 16);
  const TensorId pooled = b.slice(y, 16, 16);
  QSlice phase;
  phase.name = "phase";
  phase.input = y;
  phase.output = b.tensor(8, 8, 32, b.at(y).scale, b.at(y).zeroPoint);
  phase.rowStep = phase.colStep = 2;
  b.graph().ops.emplace_back(phase);
  b.graph().outputs = {b.conv(shared, 8, 0, 1, 1, 1, 0), b.conv(shared, 8, 0, 3, 1, 1, 1),
                       b.pool(pooled, false, 3, 1, 1), b.conv(phase.output, 8, 0, 1, 1, 1, 0)};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  for (const TensorId copied : {shared, pooled, phase.output}) {
    EXPECT_EQ(compiled.tensors[copied].storedIn, -1);
    EXPECT_TRUE(compiled.tensors[copied].ownsDdr());
  }
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "copied slices"), 0U);
}

}  // namespace
}  // namespace npu::compiler
