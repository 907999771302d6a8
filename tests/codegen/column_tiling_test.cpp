// Column tiling: layers whose output rows do not fit an SRAM half are cut into tiles of rows x
// columns with halos on both axes; every such program runs bit-exact on both engines.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "compile_run_verify.h"
#include "random_graph.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;

/// The widest CONV or POOL output tile of op `name`'s instructions, and whether one was narrower
/// than the op's output.
struct TileWidths {
  std::int64_t widest = 0;
  bool narrower = false;
};

TileWidths tileWidths(const QuantizedGraph& graph, const CompiledProgram& compiled,
                      std::size_t op) {
  const std::int64_t width = graph.tensors[opOutput(graph.ops[op])].shape[2];
  TileWidths result;
  for (std::size_t i = 0; i < compiled.program.instructions.size(); ++i) {
    if (compiled.instructionOp[i] != static_cast<std::int64_t>(op)) {
      continue;
    }
    std::int64_t outW = 0;
    if (const auto* conv = std::get_if<isa::Conv>(&compiled.program.instructions[i])) {
      outW = conv->out_w;
    } else if (const auto* pool = std::get_if<isa::Pool>(&compiled.program.instructions[i])) {
      outW = pool->out_w;
    } else {
      continue;
    }
    result.widest = std::max(result.widest, outW);
    result.narrower = result.narrower || outW < width;
  }
  return result;
}

TEST(ColumnTiling, RowsWiderThanAnSramHalfOnNpuS) {
  // 1100 columns of 64 channels: one padded input row is 70 KB, the input half 64 KiB.
  testing::RandomGraphBuilder b(21);
  const TensorId x = b.input(5, 1100, 64);
  const TensorId dense = b.conv(x, 16, 0, 3, 1, 1, 1);
  const TensorId depthwise = b.conv(x, 64, 1, 3, 2, 1, 1);
  const TensorId grouped = b.conv(x, 32, 2, 3, 1, 2, 2);
  const TensorId pooled = b.pool(x, false, 3, 2, 1);
  b.graph().outputs = {dense, depthwise, grouped, pooled};
  const isa::NpuConfig hw = config("npu-s");
  const CompiledProgram compiled = generateProgram(b.graph(), hw, b.randomInputs());
  for (std::size_t op = 0; op < b.graph().ops.size(); ++op) {
    const TileWidths widths = tileWidths(b.graph(), compiled, op);
    EXPECT_GT(widths.widest, 0) << opName(b.graph().ops[op]);
    if (op == 0 || op == 2) {  // dense and grouped: the full channels in column tiles
      EXPECT_TRUE(widths.narrower) << opName(b.graph().ops[op]);
    }
  }
  EXPECT_GT(compileRunVerify(b, hw, "wide rows on npu-s"), 0U);
}

TEST(ColumnTiling, RandomLayersOnFewKiBSrams) {
  // npu-tiny's 2 KiB input half holds no full row of these planes: every window op is cut into
  // column tiles with halos on both axes (strides, dilations and padding on both sides).
  const isa::NpuConfig hw = isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "tests" /
                                               "data" / "opcheck" / "npu-tiny.yaml");
  int narrower = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    testing::RandomGraphBuilder b(seed + 2100);
    TensorId x = b.input(b.pick(4, 9), b.pick(40, 90), b.pick(8, 24));
    for (int layer = 0; layer < 2; ++layer) {
      const std::int64_t kh = b.pick(1, 5);
      const std::int64_t dilation = b.pick(1, 3);
      const std::int64_t effective = (kh - 1) * dilation + 1;
      const std::int64_t pad = b.pick(0, effective);
      const auto& shape = b.at(x).shape;
      if (shape[1] + 2 * pad < effective || shape[2] + 2 * pad < effective) {
        break;
      }
      x = b.conv(x, b.pick(4, 24), static_cast<int>(b.pick(0, 2)), kh, b.pick(1, 3), dilation, pad);
    }
    const std::int64_t window = std::min({b.pick(1, 3), b.at(x).shape[1], b.at(x).shape[2]});
    const TensorId pooled = b.pool(x, b.pick(0, 1) == 1, window, b.pick(1, 2), b.pick(0, 1));
    const TensorId joined = b.concat({x, b.pool(x, false, 3, 1, 1)});
    const TensorId up = b.upsample(pooled, b.pick(1, 2), b.pick(1, 2));
    b.graph().outputs = {joined, up};
    const CompiledProgram compiled = generateProgram(b.graph(), hw, b.randomInputs());
    for (std::size_t op = 0; op < b.graph().ops.size(); ++op) {
      narrower += tileWidths(b.graph(), compiled, op).narrower ? 1 : 0;
    }
    compileRunVerify(b, hw, "tiny seed " + std::to_string(seed));
  }
  EXPECT_GE(narrower, 12);
}

TEST(ColumnTiling, AOneColumnOutputLoadsItsWindowWhenAWholeRowDoesNotFit) {
  // A 15x15 window dilated by 3 spans 43 x 43 pixels: one output of one input channel reads 1849
  // bytes, which npu-tiny's 2 KiB input half holds, while 43 padded input rows of 57 columns
  // (2451 bytes) do not: the single full-width tile (55 columns at stride 15 make one output)
  // loads its window, not whole rows.
  const isa::NpuConfig hw = isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "tests" /
                                               "data" / "opcheck" / "npu-tiny.yaml");
  testing::RandomGraphBuilder b(15);
  const TensorId x = b.input(43, 55, 6);
  b.graph().outputs = {b.conv(x, 4, 0, 15, 15, 3, 1)};
  EXPECT_GT(compileRunVerify(b, hw, "one-column output on npu-tiny"), 0U);
}

TEST(ColumnTiling, PaddingBeyondTheLoadFieldsAndTilesOfOnlyPadding) {
  // Padding of 70 (LOAD pads at most 63 per side): the tiles that read only padding and the rows
  // and columns past the fields are filled from a run of pad bytes. A 15x15 window dilated by 5
  // spans 71 pixels, so a tile with real pixels still needs more than 63 columns of padding.
  testing::RandomGraphBuilder b(5);
  const TensorId x = b.input(4, 5, 3);
  const TensorId wide = b.conv(x, 4, 0, 3, 2, 1, 70);
  const TensorId dilated = b.conv(x, 2, 0, 15, 3, 5, 70);
  const TensorId pooled = b.pool(x, false, 3, 1, 66);
  const TensorId averaged = b.pool(x, true, 2, 3, 64);
  b.graph().outputs = {wide, dilated, pooled, averaged};
  for (const char* name : {"npu-s", "npu-l"}) {
    EXPECT_GT(compileRunVerify(b, config(name), std::string("padding on ") + name), 0U);
  }
}

TEST(ColumnTiling, DilationsPastTheFieldAreSplitIntoPhases) {
  // DeepLab's ASPP dilation 24 on a 33x33 map (all three taps read the map: 24 x 24 phases), 36
  // (only the centre tap does: the dead ones read the zero point and are dropped, leaving a 1x1
  // conv), and a stride-2 conv dilated by 20 (ten residue classes at stride 1 per axis): every
  // CONV runs dilation 1 over a sub-grid gathered and scattered by LOAD and STORE strides.
  testing::RandomGraphBuilder b(24);
  const TensorId x = b.input(33, 33, 24);
  const TensorId aspp24 = b.conv(x, 16, 0, 3, 1, 24, 24);
  const TensorId aspp36 = b.conv(x, 16, 1, 3, 1, 36, 36);
  const TensorId strided = b.conv(x, 8, 2, 2, 2, 20, 7);
  b.graph().outputs = {aspp24, aspp36, strided};
  for (const char* name : {"npu-s", "npu-l"}) {
    const isa::NpuConfig hw = config(name);
    const CompiledProgram compiled = generateProgram(b.graph(), hw, b.randomInputs());
    std::array<int, 3> convs{};
    for (std::size_t i = 0; i < compiled.program.instructions.size(); ++i) {
      if (const auto* conv = std::get_if<isa::Conv>(&compiled.program.instructions[i])) {
        const auto op = static_cast<std::size_t>(compiled.instructionOp[i]);
        EXPECT_EQ(conv->dh, 1);
        EXPECT_EQ(conv->dw, 1);
        if (op == 1) {
          EXPECT_EQ(conv->kh * conv->kw, 1) << "the dead taps of dilation 36 are dropped";
        }
        ++convs.at(op);
      }
    }
    EXPECT_GE(convs[0], 24 * 24) << "at least one CONV per phase";
    EXPECT_GE(convs[2], 10 * 10) << "at least one CONV per phase";
    EXPECT_GT(compileRunVerify(b, hw, std::string("dilations on ") + name), 0U);
  }
}

TEST(ColumnTiling, KernelsPastTheFieldAccumulateInParts) {
  // 17x17 (parts 9 and 8 per axis) and 31x31 dilated by 2 (parts 11, 10, 10): each part is a
  // CONV over its shifted window accumulating into the same outputs, as input-channel chunks do.
  for (const char* name : {"npu-s", "npu-l"}) {
    testing::RandomGraphBuilder b(17);
    const TensorId x = b.input(40, 44, 12);
    const TensorId dense = b.conv(x, 20, 0, 17, 1, 1, 8);
    const TensorId depthwise = b.conv(x, 12, 1, 31, 2, 2, 30);
    const TensorId grouped = b.conv(x, 8, 2, 16, 3, 1, 3);
    b.graph().outputs = {dense, depthwise, grouped};
    const isa::NpuConfig hw = config(name);
    const CompiledProgram compiled = generateProgram(b.graph(), hw, b.randomInputs());
    int partial = 0;
    for (const isa::Instruction& instruction : compiled.program.instructions) {
      if (const auto* conv = std::get_if<isa::Conv>(&instruction)) {
        EXPECT_LE(conv->kh, 15);
        EXPECT_LE(conv->kw, 15);
        partial += conv->finalize == 0 ? 1 : 0;
      }
    }
    EXPECT_GT(partial, 0);
    EXPECT_GT(compileRunVerify(b, hw, std::string("large kernels on ") + name), 0U);
  }
}

TEST(ColumnTiling, GlobalPoolsBeyondOnePool) {
  // Planes past POOL's 255-pixel window or the input half: summed by depthwise CONVs into the
  // accumulator, block by block.
  testing::RandomGraphBuilder b(8);
  const TensorId row = b.input(2, 700, 5);
  const TensorId plane = b.input(260, 260, 3);
  b.graph().outputs = {b.globalPool(row), b.globalPool(plane)};
  EXPECT_GT(compileRunVerify(b, config("npu-s"), "large global pools"), 0U);
}

}  // namespace
}  // namespace npu::compiler
