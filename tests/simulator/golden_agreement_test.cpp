// One correctness test, every engine: random conv (whole or split over input channels),
// eltwise, pool and norm tiles run on the functional and the timed engine, and every output region
// must equal what the golden reference (written independently from docs/numerics.md) computes from
// the same DDR inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "npu/golden/int8_ops.h"
#include "random_program.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

namespace g = npu::golden;
using testing::TileCase;

std::int32_t readInt32(const isa::DdrImage& ddr, std::uint64_t address) {
  std::int32_t value = 0;
  const auto bytes = ddr.readRange(address, 4);
  std::memcpy(&value, bytes.data(), 4);
  return value;
}

g::Int8Tensor tensorAt(const isa::DdrImage& ddr, std::uint64_t address,
                       std::vector<std::int64_t> shape) {
  g::Int8Tensor t;
  t.shape = std::move(shape);
  std::uint64_t n = 1;
  for (const auto d : t.shape) {
    n *= static_cast<std::uint64_t>(d);
  }
  const auto bytes = ddr.readRange(address, n);
  t.data.assign(bytes.begin(), bytes.end());
  return t;
}

g::Lut lutAt(const isa::DdrImage& ddr, std::uint64_t address) {
  g::Lut lut{};
  const auto bytes = ddr.readRange(address, 256);
  std::memcpy(lut.data(), bytes.data(), 256);
  return lut;
}

g::OutputStage outputStage(std::int64_t zp, std::int64_t lo, std::int64_t hi, bool useLut,
                           bool doubleRound, const isa::DdrImage& ddr, std::uint64_t lutAddress) {
  g::OutputStage stage;
  stage.zeroPoint = static_cast<std::int32_t>(zp);
  stage.clipLo = static_cast<std::int32_t>(lo);
  stage.clipHi = static_cast<std::int32_t>(hi);
  stage.rounding = doubleRound ? g::Rounding::Double : g::Rounding::Single;
  if (useLut) {
    stage.lut = lutAt(ddr, lutAddress);
  }
  return stage;
}

/// The golden result of one tile, from the initial DDR.
g::Int8Tensor expectedTile(const TileCase& t, const isa::DdrImage& ddr) {
  if (const auto* c = std::get_if<isa::Conv>(&t.compute)) {
    const g::Int8Tensor x = tensorAt(ddr, t.inputAddress, {1, t.inRows, t.inCols, c->in_c});
    const g::Int8Tensor w =
        tensorAt(ddr, t.weightAddress, {c->out_c, c->kh, c->kw, c->depthwise != 0 ? 1 : c->in_c});
    g::Conv2dInt8Params p;
    p.strides = {c->sh, c->sw};
    p.dilations = {c->dh, c->dw};
    p.pads = {t.padTop, t.padLeft, t.padBottom, t.padRight};
    p.groups = c->depthwise != 0 ? c->in_c : 1;
    p.inputZeroPoint = static_cast<std::int32_t>(c->in_zp);
    for (std::int64_t oc = 0; oc < c->out_c; ++oc) {
      const std::uint64_t record = t.paramAddress + static_cast<std::uint64_t>(12 * oc);
      p.bias.push_back(readInt32(ddr, record));
      p.multipliers.push_back({readInt32(ddr, record + 4), readInt32(ddr, record + 8)});
    }
    p.output = outputStage(c->out_zp, c->clip_lo, c->clip_hi, c->use_lut != 0, c->double_round != 0,
                           ddr, t.paramAddress + t.paramBytes);
    return g::conv2dInt8(x, w, p);
  }
  if (const auto* e = std::get_if<isa::Eltwise>(&t.compute)) {
    const g::Int8Tensor a = tensorAt(ddr, t.inputAddress, {e->count});
    const g::Int8Tensor b =
        tensorAt(ddr, t.inputAddress + static_cast<std::uint64_t>(e->count), {e->count});
    const std::uint64_t lutAddress = t.paramAddress + 24;
    if (e->op == isa::kEltwiseLut) {
      return g::applyLut(a, lutAt(ddr, lutAddress));
    }
    auto multiplier = [&](int k) {
      return g::QuantizedMultiplier{readInt32(ddr, t.paramAddress + 8 * k),
                                    readInt32(ddr, t.paramAddress + 8 * k + 4)};
    };
    const g::OutputStage stage = outputStage(e->out_zp, e->clip_lo, e->clip_hi, e->use_lut != 0,
                                             e->double_round != 0, ddr, lutAddress);
    if (e->op == isa::kEltwiseAdd || e->op == isa::kEltwiseSub) {
      g::AddInt8Params p;
      p.zeroPointA = static_cast<std::int32_t>(e->a_zp);
      p.zeroPointB = static_cast<std::int32_t>(e->b_zp);
      p.leftShift = static_cast<std::int32_t>(e->left_shift);
      p.multiplierA = multiplier(0);
      p.multiplierB = multiplier(1);
      p.multiplierOut = multiplier(2);
      p.output = stage;
      return e->op == isa::kEltwiseAdd ? g::addInt8(a, b, p) : g::subInt8(a, b, p);
    }
    g::MulInt8Params p;
    p.zeroPointA = static_cast<std::int32_t>(e->a_zp);
    p.zeroPointB = static_cast<std::int32_t>(e->b_zp);
    p.multiplierOut = multiplier(2);
    p.output = stage;
    return g::mulInt8(a, b, p);
  }
  if (const auto* n = std::get_if<isa::Norm>(&t.compute)) {
    const g::Int8Tensor x = tensorAt(ddr, t.inputAddress, {n->rows, n->length});
    if (n->op == 0) {
      g::SoftmaxInt8Params p;
      const auto table = ddr.readRange(t.paramAddress, 512);
      for (std::size_t k = 0; k < 256; ++k) {
        p.expTable[k] = static_cast<std::uint16_t>(table[2 * k] | (table[2 * k + 1] << 8));
      }
      p.outputZeroPoint = static_cast<std::int32_t>(n->out_zp);
      p.clipLo = static_cast<std::int32_t>(n->clip_lo);
      p.clipHi = static_cast<std::int32_t>(n->clip_hi);
      return g::softmaxRowsInt8(x, p);
    }
    g::LayerNormInt8Params p;
    const auto epsilon = ddr.readRange(t.paramAddress, 8);
    std::memcpy(&p.epsilonTerm, epsilon.data(), 8);
    p.inputZeroPoint = static_cast<std::int32_t>(n->in_zp);
    for (std::int64_t j = 0; j < n->length; ++j) {
      const std::uint64_t record =
          t.paramAddress + 8 + static_cast<std::uint64_t>(n->one_record != 0 ? 0 : 12 * j);
      p.positions.push_back(
          {readInt32(ddr, record), readInt32(ddr, record + 4), readInt32(ddr, record + 8)});
    }
    p.outputZeroPoint = static_cast<std::int32_t>(n->out_zp);
    p.clipLo = static_cast<std::int32_t>(n->clip_lo);
    p.clipHi = static_cast<std::int32_t>(n->clip_hi);
    return n->op == isa::kNormRmsNorm ? g::rmsNormRowsInt8(x, p) : g::layerNormRowsInt8(x, p);
  }
  const auto& pool = std::get<isa::Pool>(t.compute);
  const g::Int8Tensor x = tensorAt(ddr, t.inputAddress, {1, t.inRows, t.inCols, pool.channels});
  g::PoolInt8Params p;
  p.kernel = {pool.kh, pool.kw};
  p.strides = {pool.sh, pool.sw};
  p.pads = {t.padTop, t.padLeft, 0, 0};
  if (pool.op == 0) {
    return g::maxPoolInt8(x, p);
  }
  const g::QuantizedMultiplier reciprocal = g::averagePoolMultiplier(pool.kh, pool.kw);
  EXPECT_EQ(reciprocal.multiplier, pool.avg_mult);
  EXPECT_EQ(reciprocal.shift, pool.avg_shift);
  return g::averagePoolInt8(x, p, 0);
}

class GoldenAgreement : public ::testing::TestWithParam<SimMode> {};

/// Returns how many distinct output values the tiles produced, so the tests can insist the
/// comparison covers more than saturated outputs.
std::size_t checkAgainstGolden(testing::RandomProgramBuilder& builder, SimMode mode,
                               const std::string& what) {
  std::array<bool, 256> seen{};
  const isa::Program program = builder.build();
  const isa::DdrImage initial = isa::DdrImage::fromProgram(program);
  const SimResult result = testing::run(program, mode);
  EXPECT_FALSE(result.fault) << what << ": " << result.fault->what();
  if (result.fault) {
    return 0;
  }
  for (std::size_t k = 0; k < builder.tiles().size(); ++k) {
    const TileCase& t = builder.tiles()[k];
    const g::Int8Tensor expected = expectedTile(t, initial);
    const auto actual = result.ddr.readRange(t.outputAddress, t.outputBytes);
    EXPECT_EQ(expected.data.size(), actual.size()) << what << " tile " << k;
    for (std::size_t i = 0; i < std::min(actual.size(), expected.data.size()); ++i) {
      seen[actual[i]] = true;
      if (static_cast<std::int8_t>(actual[i]) != expected.data[i]) {
        ADD_FAILURE() << what << " tile " << k << " (" << isa::mnemonicOf(t.compute) << ") byte "
                      << i << ": simulator " << int{static_cast<std::int8_t>(actual[i])}
                      << ", golden " << int{expected.data[i]};
        return 0;
      }
    }
  }
  // Nothing outside the output regions changed.
  isa::DdrImage outside = result.ddr;
  for (const TileCase& t : builder.tiles()) {
    outside.write(t.outputAddress, initial.readRange(t.outputAddress, t.outputBytes));
  }
  const auto stray = outside.firstDifference(initial);
  EXPECT_FALSE(stray) << what << ": stray write at 0x" << std::hex << stray.value_or(0);
  return static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
}

TEST_P(GoldenAgreement, Conv) {
  std::size_t distinct = 0;
  for (std::uint64_t seed = 100; seed < 140; ++seed) {
    testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
    for (int i = 0; i < 4; ++i) {
      builder.addConv();
    }
    distinct = std::max(
        distinct, checkAgainstGolden(builder, GetParam(), "conv seed " + std::to_string(seed)));
  }
  EXPECT_GT(distinct, 100U) << "outputs too uniform to test much";
}

// Input-channel splits through the accumulator SRAM: every pass but the last keeps int32 partial
// sums (finalize=0), every pass but the first starts from them (acc_init=0); the result must be
// golden's conv over all input channels. The third tile is unsplit, so a split follows a plain
// conv and a plain conv follows a split.
TEST_P(GoldenAgreement, SplitConv) {
  std::size_t distinct = 0;
  std::size_t middlePasses = 0;  // acc_init=0 finalize=0: read and write the accumulator
  for (std::uint64_t seed = 400; seed < 440; ++seed) {
    testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
    for (int i = 0; i < 4; ++i) {
      if (i == 2) {
        builder.addConv();
      } else {
        builder.addSplitConv();
      }
    }
    for (const TileCase& t : builder.tiles()) {
      middlePasses += std::max<std::size_t>(t.channelBlocks.size(), 2) - 2;
    }
    distinct = std::max(distinct, checkAgainstGolden(builder, GetParam(),
                                                     "split conv seed " + std::to_string(seed)));
  }
  EXPECT_GT(middlePasses, 20U) << "too few splits with a middle pass";
  EXPECT_GT(distinct, 100U) << "outputs too uniform to test much";
}

TEST_P(GoldenAgreement, Eltwise) {
  std::size_t distinct = 0;
  for (std::uint64_t seed = 200; seed < 240; ++seed) {
    testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
    for (int i = 0; i < 4; ++i) {
      builder.addEltwise();
    }
    distinct = std::max(
        distinct, checkAgainstGolden(builder, GetParam(), "eltwise seed " + std::to_string(seed)));
  }
  EXPECT_GT(distinct, 100U) << "outputs too uniform to test much";
}

TEST_P(GoldenAgreement, Pool) {
  std::size_t distinct = 0;
  for (std::uint64_t seed = 300; seed < 340; ++seed) {
    testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
    for (int i = 0; i < 4; ++i) {
      builder.addPool();
    }
    distinct = std::max(
        distinct, checkAgainstGolden(builder, GetParam(), "pool seed " + std::to_string(seed)));
  }
  EXPECT_GT(distinct, 100U) << "outputs too uniform to test much";
}

// NORM: integer softmax and LayerNorm rows, the divider and square root included.
TEST_P(GoldenAgreement, Norm) {
  // Half the programs with the extremes of the parameters: epsilon terms up to 2^62 (the top
  // two bits masked), record shifts past [-31, 30] (clamped) and products far past int32, and
  // short rows where the root's last bit shows.
  testing::NormOptions extremes;
  extremes.maxLength = 8;
  extremes.wideEpsilon = true;
  extremes.shiftLo = -40;
  extremes.shiftHi = 40;
  std::size_t distinct = 0;
  for (std::uint64_t seed = 500; seed < 540; ++seed) {
    testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
    for (int i = 0; i < 4; ++i) {
      builder.addNorm(seed % 2 == 0 ? testing::NormOptions{} : extremes);
    }
    distinct = std::max(
        distinct, checkAgainstGolden(builder, GetParam(), "norm seed " + std::to_string(seed)));
  }
  EXPECT_GT(distinct, 100U) << "outputs too uniform to test much";
}

INSTANTIATE_TEST_SUITE_P(BothModes, GoldenAgreement,
                         ::testing::Values(SimMode::Functional, SimMode::Timed),
                         [](const auto& info) {
                           return info.param == SimMode::Functional ? "functional" : "timed";
                         });

}  // namespace
}  // namespace npu::sim
