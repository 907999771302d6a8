// Co-simulation of the RTL against the SystemC timed model: every opcode on small assembled
// programs (examples/asm/smoke.s and tests/data/rtl/*.s), random hazard-free conv, eltwise and
// pool programs, and random NORM programs (alone and mixed with the other tiles). Each must end
// with the same whole DDR and the same end cycle for every instruction.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <variant>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/assembly.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/verify.h"
#include "npu/support/error.h"
#include "random_graph.h"
#include "random_program.h"

namespace npu::runtime {
namespace {

const std::filesystem::path kSource = NPU_SOURCE_DIR;

void expectMatch(const isa::Program& program, const std::string& what) {
  const CosimReport report = cosimulate(program);
  EXPECT_TRUE(report.matches()) << what << ":\n" << report.summary(program);
}

class AssembledPrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(AssembledPrograms, MatchSystemC) {
  const std::filesystem::path path = kSource / GetParam();
  expectMatch(isa::assembleFile(path), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Rtl, AssembledPrograms,
                         ::testing::Values("examples/asm/smoke.s", "tests/data/rtl/eltwise.s",
                                           "tests/data/rtl/pool.s", "tests/data/rtl/conv_dw.s",
                                           "tests/data/rtl/conv_split.s", "tests/data/rtl/tokens.s",
                                           "tests/data/rtl/token_full.s", "tests/data/rtl/dma.s",
                                           "tests/data/rtl/ddr_end.s", "tests/data/rtl/norm.s"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

isa::Program randomProgram(std::uint64_t seed, int tiles) {
  return sim::testing::randomTileProgram(rtl::rtlConfig(), seed, tiles);
}

// Four shards of 40 programs each (ctest runs them in parallel), 2 to 9 tiles per program.
class RandomPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomPrograms, MatchSystemC) {
  for (int k = 0; k < 40; ++k) {
    const auto seed = static_cast<std::uint64_t>(40 * GetParam() + k + 1);
    expectMatch(randomProgram(seed, 2 + static_cast<int>(seed % 8)),
                "random program seed " + std::to_string(seed));
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomPrograms, ::testing::Range(0, 4));

// NORM tiles with random shapes, exp tables, epsilon terms and records (addNorm): four shards of
// 24 programs, each of four NORM tiles; every other program also has a conv, eltwise or pool tile
// after each NORM tile. A third of the programs have rows of at most 8 values (small roots, where
// the root's last bit reaches the output), a third epsilon terms up to 2^62 and shifts near 0
// (small |t|, where its rounding reaches the output; else products beyond int32 before the bias).
// Both ops must occur, and every NORM must end on the SystemC model's cycle.
class RandomNormPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomNormPrograms, MatchSystemC) {
  using Options = sim::testing::NormOptions;
  const Options shortRows{.maxLength = 8};
  const Options wideEpsilon{.maxLength = 64, .wideEpsilon = true, .shiftLo = -6, .shiftHi = 1};
  const Options kinds[] = {Options{}, shortRows, wideEpsilon};
  int softmax = 0;
  int layerNorm = 0;
  for (int k = 0; k < 24; ++k) {
    const auto seed = static_cast<std::uint64_t>(1000 + 24 * GetParam() + k);
    const bool mixed = k % 2 == 1;
    sim::testing::RandomProgramBuilder builder(rtl::rtlConfig(), seed);
    for (int tile = 0; tile < 4; ++tile) {
      builder.addNorm(kinds[k / 2 % 3]);
      if (mixed) {
        builder.addConvEltwiseOrPool();
      }
    }
    const isa::Program program = builder.build();
    for (const auto& tile : builder.tiles()) {
      if (const auto* norm = std::get_if<isa::Norm>(&tile.compute)) {
        ++(norm->op == 0 ? softmax : layerNorm);
      }
    }
    const std::string what = "random NORM program seed " + std::to_string(seed);
    const CosimReport report = cosimulate(program);
    EXPECT_TRUE(report.matches()) << what << ":\n" << report.summary(program);
    EXPECT_EQ(report.cycleDelta(), 0) << what;
  }
  EXPECT_GT(softmax, 0);
  EXPECT_GT(layerNorm, 0);
  std::cout << "co-simulated " << softmax << " softmax and " << layerNorm << " LayerNorm NORMs\n";
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomNormPrograms, ::testing::Range(0, 4));

TEST(RtlCodegen, ColumnTilesPhasesKernelPartsAndPadFillsAreCycleExact) {
  // Issue 21's lowerings as codegen emits them for the RTL's config (npu-s): a layer whose
  // 1100-column rows no input half holds (column tiles), a dilation of 24 (phases over strided
  // sub-grids), a 17x17 kernel (parts accumulating), and padding of 70 (fills from pad runs).
  compiler::testing::RandomGraphBuilder b(2124);
  const compiler::TensorId wide = b.input(4, 1100, 64);
  const compiler::TensorId small = b.input(33, 33, 8);
  b.graph().outputs = {b.conv(wide, 16, 0, 3, 1, 1, 1), b.conv(small, 8, 0, 3, 1, 24, 24),
                       b.conv(small, 8, 1, 17, 2, 1, 8), b.conv(small, 4, 0, 3, 2, 1, 70)};
  const compiler::CompiledProgram compiled =
      compiler::generateProgram(b.graph(), rtl::rtlConfig(), b.randomInputs());
  expectMatch(compiled.program, "issue 21 lowerings");
}

TEST(RtlCodegen, AttentionMatMulsAreCycleExactAndGolden) {
  // One attention head group as codegen lowers it: S = Q x K^T (K laid out [N][K], produced by
  // a LUT op of the program), then O = S x V (V laid out [K][N], read by a CONV with wgt_kn,
  // also produced), 3 heads of 40 tokens and 64 channels, with zero points on the first operands;
  // and the row max and row sum of the scores (a POOL over the rows, a CONV with ones).
  using compiler::QTensor;
  compiler::QuantizedGraph g;
  auto tensor = [&](const std::string& name, std::int64_t m, std::int64_t n, std::int32_t zp) {
    g.tensors.push_back(QTensor{name, {1, 3, m, n}, 0.05, zp});
    return g.tensors.size() - 1;
  };
  const auto q = tensor("q", 40, 64, -7);
  const auto kRaw = tensor("k_raw", 40, 64, 0);
  const auto vRaw = tensor("v_raw", 40, 64, 0);
  const auto k = tensor("k", 40, 64, 0);
  const auto v = tensor("v", 40, 64, 0);
  const auto scores = tensor("s", 40, 40, -128);
  const auto out = tensor("o", 40, 64, 3);
  const auto rowMax = tensor("s_max", 40, 1, -128);
  const auto rowSum = tensor("s_sum", 40, 1, 5);
  g.inputs = {q, kRaw, vRaw};
  g.outputs = {out, rowMax, rowSum};
  golden::Lut identity{};
  for (int i = 0; i < 256; ++i) {
    identity[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i - 128) / 2);
  }
  g.ops.emplace_back(compiler::QLut{"k_lut", kRaw, k, identity});
  g.ops.emplace_back(compiler::QLut{"v_lut", vRaw, v, identity});
  golden::MatMulInt8Params qk;
  qk.zeroPointA = -7;
  qk.layoutB = golden::MatMulLayout::NK;
  qk.multiplier = golden::quantizeMultiplier(1.0 / 2048.0);
  qk.output.zeroPoint = -128;
  g.ops.emplace_back(compiler::QMatMul{"qk", q, k, scores, qk, std::nullopt});
  golden::MatMulInt8Params pv;
  pv.zeroPointA = -128;
  pv.layoutB = golden::MatMulLayout::KN;
  pv.multiplier = golden::quantizeMultiplier(1.0 / 1024.0);
  pv.output.zeroPoint = 3;
  pv.output.rounding = golden::Rounding::Double;
  g.ops.emplace_back(compiler::QMatMul{"pv", scores, v, out, pv, std::nullopt});
  g.ops.emplace_back(compiler::QReduce{"max", scores, rowMax, compiler::QReduce::Kind::Max, {}});
  golden::ReduceSumInt8Params sum;
  sum.inputZeroPoint = -128;
  sum.multiplier = golden::quantizeMultiplier(1.0 / 64.0);
  sum.output.zeroPoint = 5;
  g.ops.emplace_back(compiler::QReduce{"sum", scores, rowSum, compiler::QReduce::Kind::Sum, sum});
  std::vector<golden::Int8Tensor> inputs;
  std::uint32_t state = 2718;
  for (const auto id : g.inputs) {
    golden::Int8Tensor t = golden::makeInt8Tensor(g.tensors[id].shape);
    for (auto& value : t.data) {
      state = state * 1664525U + 1013904223U;
      value = static_cast<std::int8_t>(state >> 24);
    }
    inputs.push_back(std::move(t));
  }
  const compiler::CompiledProgram compiled = compiler::generateProgram(g, rtl::rtlConfig(), inputs);
  const CosimReport report = cosimulate(compiled.program);
  EXPECT_TRUE(report.matches()) << report.summary(compiled.program);
  const auto values = compiler::runQuantizedGraphGolden(g, inputs);
  const auto mismatch = verifyDdr(compiled, g, expectedDdr(compiled, g, values), report.rtl.ddr);
  EXPECT_FALSE(mismatch) << mismatch->message;
  // The scores are not all one value: the check above compares something.
  const auto& s = values[scores].data;
  EXPECT_NE(std::count(s.begin(), s.end(), s.front()), static_cast<std::ptrdiff_t>(s.size()));
}

TEST(RtlConfig, RejectsAnotherHardwareConfig) {
  isa::Program program = isa::assembleFile(kSource / "examples/asm/smoke.s");
  program.config.name = "npu-wide";
  program.config.macCols = 32;
  try {
    (void)rtl::runRtl(program);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the program targets hardware config 'npu-wide', but the RTL model was built for "
                 "'npu-s'");
  }
}

}  // namespace
}  // namespace npu::runtime
