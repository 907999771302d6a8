// Codegen end to end: random quantized graphs compiled, run on both simulator engines with the
// hazard checker on, and the whole final DDR compared with the golden expectation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <utility>
#include <variant>

#include "compile_run_verify.h"
#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/codegen/input_im2col.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "random_graph.h"

namespace npu::compiler {
namespace {

using testing::compileRunVerify;
using testing::config;

TEST(Codegen, RandomConvolutions) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    testing::RandomGraphBuilder b(seed);
    TensorId x = b.input(b.pick(3, 14), b.pick(3, 14), b.pick(1, 40));
    for (int layer = 0; layer < 3; ++layer) {
      const std::int64_t kh = b.pick(1, 5);
      const std::int64_t dilation = b.pick(1, 2);
      const std::int64_t effective = (kh - 1) * dilation + 1;
      const std::int64_t pad = b.pick(0, effective / 2);
      const auto& shape = b.at(x).shape;
      if (shape[1] + 2 * pad < effective || shape[2] + 2 * pad < effective) {
        break;
      }
      x = b.conv(x, b.pick(1, 40), static_cast<int>(b.pick(0, 2)), kh, b.pick(1, 3), dilation, pad);
    }
    b.graph().outputs = {x};
    compileRunVerify(b, config("npu-s"), "conv seed " + std::to_string(seed));
  }
}

TEST(Codegen, ResidualEltwiseAndLut) {
  for (std::uint64_t seed = 100; seed < 115; ++seed) {
    testing::RandomGraphBuilder b(seed);
    const TensorId x = b.input(b.pick(2, 12), b.pick(2, 12), b.pick(1, 32));
    const TensorId branch = b.conv(x, b.at(x).shape[3], 0, 3, 1, 1, 1);
    const TensorId sum = b.add(x, branch);
    const TensorId gated = b.mul(sum, b.lut(sum));
    b.graph().outputs = {gated};
    compileRunVerify(b, config("npu-s"), "eltwise seed " + std::to_string(seed));
  }
}

TEST(Codegen, PoolsConcatUpsample) {
  for (std::uint64_t seed = 200; seed < 215; ++seed) {
    testing::RandomGraphBuilder b(seed);
    const TensorId x = b.input(b.pick(4, 16), b.pick(4, 16), b.pick(1, 24));
    const TensorId pooled = b.pool(x, b.pick(0, 1) == 1, b.pick(2, 3), b.pick(1, 2), b.pick(0, 1));
    const TensorId same = b.pool(x, false, 3, 1, 1);
    const TensorId joined = b.concat({x, same});
    const TensorId up = b.upsample(pooled, b.pick(1, 3), b.pick(1, 3));
    const TensorId gap = b.globalPool(joined);
    b.graph().outputs = {up, gap};
    compileRunVerify(b, config("npu-s"), "pool seed " + std::to_string(seed));
  }
}

TEST(Codegen, LinearResizeAlongRowsAndColumns) {
  // Up, down and arbitrary lengths under every coordinate transform, rows then columns (as
  // split-linear-resize leaves a bilinear Resize), with random requant and output stages.
  const std::array transforms{
      golden::CoordinateTransform::HalfPixel, golden::CoordinateTransform::PytorchHalfPixel,
      golden::CoordinateTransform::AlignCorners, golden::CoordinateTransform::Asymmetric};
  for (std::uint64_t seed = 300; seed < 320; ++seed) {
    testing::RandomGraphBuilder b(seed);
    const TensorId x = b.input(b.pick(1, 12), b.pick(1, 12), b.pick(1, 40));
    const auto transform = transforms[static_cast<std::size_t>(b.pick(0, 3))];
    auto length = [&](std::int64_t from) {
      switch (b.pick(0, 2)) {
        case 0:
          return from * b.pick(2, 8);  // integer upsampling (phases)
        case 1:
          return b.pick(1, 40);  // any length, down included
        default:
          return std::max<std::int64_t>(1, from / b.pick(1, 3));
      }
    };
    const TensorId rows = b.resizeLinear(x, 1, length(b.at(x).shape[1]), transform);
    const TensorId cols = b.resizeLinear(rows, 2, length(b.at(rows).shape[2]), transform);
    b.graph().outputs = {cols};
    compileRunVerify(b, config(seed % 2 == 0 ? "npu-s" : "npu-l"),
                     "linear resize seed " + std::to_string(seed));
  }
}

TEST(Codegen, ActivationArenaReusesWhatNoFusionReads) {
  // A chain of dense 3x3 convs: no cascade or gated project can fuse them, so each intermediate
  // is freed after its reader and the arena holds two of them at a time (the activation plan
  // keeps inputs longer only where a fused lowering could still read them).
  testing::RandomGraphBuilder b(9);
  TensorId x = b.input(32, 32, 64);
  for (int layer = 0; layer < 6; ++layer) {
    x = b.conv(x, 64, 0, 3, 1, 1, 1);
  }
  b.graph().outputs = {x};
  const CompiledProgram compiled = generateProgram(b.graph(), config("npu-s"), b.randomInputs());
  std::uint64_t arena = 0;
  for (const isa::Region& region : compiled.program.regions) {
    if (region.kind == isa::RegionKind::Scratch) {
      arena = region.size;
    }
  }
  EXPECT_EQ(arena, 2U * 32 * 32 * 64);
  compileRunVerify(b, config("npu-s"), "dense chain");
}

/// Stream positions of op `index`'s first weight LOAD (buf 1) and first input LOAD (buf 0).
std::pair<std::size_t, std::size_t> firstLoadsOf(const CompiledProgram& compiled,
                                                 std::size_t index) {
  std::size_t weights = compiled.instructionOp.size(), input = weights;
  for (std::size_t i = 0; i < compiled.instructionOp.size(); ++i) {
    const auto* load = std::get_if<isa::Load>(&compiled.program.instructions[i]);
    if (load == nullptr || compiled.instructionOp[i] != static_cast<std::int64_t>(index)) {
      continue;
    }
    std::size_t& first = load->buf == 1 ? weights : input;
    first = std::min(first, i);
  }
  return {weights, input};
}

TEST(Codegen, ConvWeightsLoadBeforeAnInputStillBeingStoredWhereTheLayerBeforeComputes) {
  // After a conv the second conv's weights are ready long before its input (the first conv's
  // last STORE): they load first, while that conv computes.
  testing::RandomGraphBuilder chain(21);
  TensorId x = chain.input(20, 20, 32);
  x = chain.conv(x, 48, 0, 3, 1, 1, 1);
  chain.graph().outputs = {chain.conv(x, 32, 0, 3, 1, 1, 1)};
  const CompiledProgram afterConv =
      generateProgram(chain.graph(), config("npu-s"), chain.randomInputs());
  const auto [weights, input] = firstLoadsOf(afterConv, 1);
  EXPECT_LT(input, afterConv.instructionOp.size());
  EXPECT_LT(weights, input);
  compileRunVerify(chain, config("npu-s"), "conv after conv");
  // After a max pool, which only moves data, the port has no slack: the input loads first.
  testing::RandomGraphBuilder pooled(22);
  TensorId y = pooled.input(20, 20, 32);
  y = pooled.pool(y, false, 3, 1, 1);
  pooled.graph().outputs = {pooled.conv(y, 32, 0, 3, 1, 1, 1)};
  const CompiledProgram afterPool =
      generateProgram(pooled.graph(), config("npu-s"), pooled.randomInputs());
  const auto [poolWeights, poolInput] = firstLoadsOf(afterPool, 1);
  EXPECT_LT(poolWeights, afterPool.instructionOp.size());
  EXPECT_LT(poolInput, poolWeights);
  compileRunVerify(pooled, config("npu-s"), "conv after pool");
}

TEST(Codegen, LayersLargerThanTheSramsAreTiled) {
  testing::RandomGraphBuilder b(7);
  const TensorId x = b.input(24, 24, 512);  // 288 KiB input; 3x3x512 weights per channel
  const TensorId y = b.conv(x, 40, 0, 3, 1, 1, 1);
  const TensorId z = b.conv(y, 40, 1, 3, 2, 1, 1);
  b.graph().outputs = {z};
  const std::uint64_t small = compileRunVerify(b, config("npu-s"), "large layer on npu-s");
  const std::uint64_t large = compileRunVerify(b, config("npu-l"), "large layer on npu-l");
  EXPECT_GT(small, 0U);
  EXPECT_LT(large, small);
}

TEST(Codegen, PlacementStartsOnDdrBurstBoundaries) {
  // npu-l moves 128-byte bursts: every tensor, weight blob and the code start on one, so a
  // contiguous transfer touches no burst it does not fill (docs/timing.md).
  testing::RandomGraphBuilder b(11);
  const TensorId x = b.input(9, 7, 5);
  const TensorId y = b.conv(x, 13, 0, 3, 1, 1, 1);
  const TensorId z = b.add(y, b.conv(y, 13, 1, 1, 1, 1, 0));
  const TensorId joined = b.concat({x, b.pool(x, false, 3, 1, 1)});
  b.graph().outputs = {z, joined};
  const isa::NpuConfig hw = config("npu-l");
  ASSERT_EQ(hw.ddrBurstBytes, 128);
  const CompiledProgram compiled = generateProgram(b.graph(), hw, b.randomInputs());
  for (const isa::Region& region : compiled.program.regions) {
    EXPECT_EQ(region.base % 128, 0U) << region.name;
  }
  for (const isa::DdrSegment& segment : compiled.program.segments) {
    EXPECT_EQ(segment.address % 128, 0U);
  }
  EXPECT_EQ(compiled.program.codeAddress % 128, 0U);
  compileRunVerify(b, hw, "burst-aligned placement");
}

TEST(Codegen, SramTooSmallForOnePixelNamesTheLayerAndTheOp) {
  // A 3x3 window dilated by 12 spans 25 x 25 pixels: 625 bytes of even one input channel, more
  // than an input half of 512.
  testing::RandomGraphBuilder b(3);
  const TensorId x = b.input(30, 30, 4);
  const TensorId y = b.conv(x, 4, 1, 1, 1, 1, 0);
  b.graph().outputs = {b.conv(y, 8, 0, 3, 1, 12, 12)};
  isa::NpuConfig hw = config("npu-s");
  hw.inputSramBytes = 1024;
  try {
    generateProgram(b.graph(), hw, b.randomInputs());
    FAIL() << "expected an error";
  } catch (const OpUnsupported& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_EQ(e.op(), 1U);
    EXPECT_EQ(std::string(e.what()),
              "layer 'conv1': SRAM too small for one output pixel (input half 512 B, output half "
              "32768 B, weight half 65536 B)");
  }
}

}  // namespace
}  // namespace npu::compiler

namespace npu::compiler {
namespace {

TEST(InputIm2col, SmallChannelStemsBecomeBitIdentical1x1Convs) {
  int rewritten = 0;
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    testing::RandomGraphBuilder b(seed + 500);
    const TensorId x = b.input(b.pick(5, 20), b.pick(5, 20), b.pick(1, 7));
    const std::int64_t kh = b.pick(2, 7);
    const std::int64_t dilation = b.pick(1, 2);
    const std::int64_t effective = (kh - 1) * dilation + 1;
    if (b.at(x).shape[1] + effective < effective * 2 ||
        b.at(x).shape[2] + effective < effective * 2) {
      continue;
    }
    const TensorId y =
        b.conv(x, b.pick(1, 40), 0, kh, b.pick(1, 3), dilation, b.pick(0, effective / 2));
    b.graph().outputs = {y};
    const std::vector<golden::Int8Tensor> inputs = b.randomInputs();
    const std::vector<golden::Int8Tensor> reference = runQuantizedGraphGolden(b.graph(), inputs);

    QuantizedGraph packed = b.graph();
    const auto im2col = im2colGraphInputs(packed);
    ASSERT_EQ(im2col.size(), 1U);
    const std::int64_t channels = b.at(x).shape[3];
    if (kh * kh * channels > kIm2colMaxColumns) {
      EXPECT_FALSE(im2col[0]) << "seed " << seed;
      continue;
    }
    ASSERT_TRUE(im2col[0]) << "seed " << seed;
    ++rewritten;
    const auto& conv = std::get<QConv>(packed.ops[0]);
    EXPECT_EQ(conv.weights.shape,
              (std::vector<std::int64_t>{b.at(y).shape[3], 1, 1, kh * kh * channels}));
    // The golden reference on the im2col input gives the same bytes as on the original.
    const golden::Int8Tensor columns = im2colInput(inputs[0], *im2col[0]);
    EXPECT_EQ(columns.shape, packed.tensors[packed.inputs[0]].shape);
    const auto values = runQuantizedGraphGolden(packed, {columns});
    EXPECT_EQ(values[y].data, reference[y].data) << "seed " << seed;
    // And the NPU runs the rewritten graph bit-exactly.
    const isa::NpuConfig hw = config("npu-s");
    const CompiledProgram compiled = generateProgram(packed, hw, {columns});
    const sim::SimResult result = sim::simulate(compiled.program, sim::SimOptions{});
    ASSERT_FALSE(result.fault) << result.fault->what();
    const auto mismatch = runtime::verifyDdr(
        compiled, packed, runtime::expectedDdr(compiled, packed, values), result.ddr);
    EXPECT_FALSE(mismatch) << mismatch->message;
  }
  EXPECT_GE(rewritten, 10);
}

TEST(InputIm2col, InputsWithOtherReadersOrManyChannelsStay) {
  testing::RandomGraphBuilder b(7);
  const TensorId x = b.input(8, 8, 3);
  const TensorId y = b.conv(x, 8, 0, 3, 1, 1, 1);
  b.graph().outputs = {y, x};  // the input is also an output: it must keep its layout
  QuantizedGraph g = b.graph();
  EXPECT_FALSE(im2colGraphInputs(g)[0]);
  testing::RandomGraphBuilder wide(8);
  const TensorId x16 = wide.input(8, 8, 16);
  wide.graph().outputs = {wide.conv(x16, 8, 0, 3, 1, 1, 1)};
  QuantizedGraph g16 = wide.graph();
  EXPECT_FALSE(im2colGraphInputs(g16)[0]);
  EXPECT_EQ(g16.tensors[g16.inputs[0]].shape, (std::vector<std::int64_t>{1, 8, 8, 16}));
}

}  // namespace
}  // namespace npu::compiler
