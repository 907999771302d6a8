// Codegen end to end: random quantized graphs compiled, run on both simulator engines with the
// hazard checker on, and the whole final DDR compared with the golden expectation.
#include <gtest/gtest.h>

#include "npu/compiler/codegen/codegen.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "random_graph.h"

namespace npu::compiler {
namespace {

isa::NpuConfig config(const std::string& name) {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / (name + ".yaml"));
}

/// Compiles, runs in both modes and verifies; returns the timed cycle count.
std::uint64_t compileRunVerify(testing::RandomGraphBuilder& builder, const isa::NpuConfig& hw,
                               const std::string& what) {
  const std::vector<golden::Int8Tensor> inputs = builder.randomInputs();
  const QuantizedGraph& graph = builder.graph();
  const CompiledProgram compiled = generateProgram(graph, hw, inputs);
  const auto values = runQuantizedGraphGolden(graph, inputs);
  const sim::DdrImage expected = runtime::expectedDdr(compiled, graph, values);
  std::uint64_t cycles = 0;
  for (const sim::SimMode mode : {sim::SimMode::Functional, sim::SimMode::Timed}) {
    sim::SimOptions options;
    options.mode = mode;
    const sim::SimResult result = sim::simulate(compiled.program, options);
    EXPECT_FALSE(result.fault) << what << ": " << result.fault->what();
    if (result.fault) {
      return 0;
    }
    const auto mismatch = runtime::verifyDdr(compiled, graph, expected, result.ddr);
    EXPECT_FALSE(mismatch) << what << ": " << mismatch->message;
    cycles = result.stats.totalCycles;
  }
  return cycles;
}

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

TEST(Codegen, SramTooSmallNamesTheLayer) {
  testing::RandomGraphBuilder b(3);
  const TensorId x = b.input(8, 3000, 64);
  b.graph().outputs = {b.conv(x, 8, 0, 3, 1, 1, 1)};
  try {
    generateProgram(b.graph(), config("npu-s"), b.randomInputs());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 44), "layer 'conv0': SRAM too small for any tile (");
  }
}

}  // namespace
}  // namespace npu::compiler
