// fp32 unary math, Pow, Min/Max and PRelu against hand-computed values.
#include "npu/golden/fp32_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();

struct UnaryCase {
  UnaryKind kind;
  float x;
  float expected;  // NaN means NaN is expected
};

const std::vector<UnaryCase> kUnaryCases{
    {UnaryKind::Sqrt, 4, 2},
    {UnaryKind::Sqrt, 2, 1.4142135F},
    {UnaryKind::Sqrt, 0, 0},
    {UnaryKind::Sqrt, -1, kNan},
    {UnaryKind::Reciprocal, 4, 0.25},
    {UnaryKind::Reciprocal, -0.5, -2},
    {UnaryKind::Reciprocal, 0, kInf},
    {UnaryKind::Exp, 0, 1},
    {UnaryKind::Exp, 1, 2.7182818F},
    {UnaryKind::Exp, -1, 0.3678794F},
    {UnaryKind::Log, 1, 0},
    {UnaryKind::Log, std::numbers::e_v<float>, 1},
    {UnaryKind::Log, 0, -kInf},
    {UnaryKind::Log, -1, kNan},
    {UnaryKind::Neg, 2.5, -2.5},
    {UnaryKind::Neg, -3, 3},
    {UnaryKind::Abs, -2.5, 2.5},
    {UnaryKind::Abs, 3, 3},
    {UnaryKind::Floor, -1.5, -2},
    {UnaryKind::Floor, 1.5, 1},
    {UnaryKind::Floor, 2, 2},
    {UnaryKind::Ceil, -1.5, -1},
    {UnaryKind::Ceil, 1.5, 2},
    {UnaryKind::Ceil, 2, 2},
    {UnaryKind::Round, 0.5, 0},
    {UnaryKind::Round, 1.5, 2},
    {UnaryKind::Round, 2.5, 2},
    {UnaryKind::Round, -0.5, 0},
    {UnaryKind::Round, -1.5, -2},
    {UnaryKind::Round, -2.5, -2},
    {UnaryKind::Round, 2.4F, 2},
    {UnaryKind::Round, 2.6F, 3},
    {UnaryKind::Erf, 0, 0},
    {UnaryKind::Erf, 1, 0.8427008F},
    {UnaryKind::Erf, -0.5, -0.5204999F},
    {UnaryKind::Sign, -3, -1},
    {UnaryKind::Sign, 0, 0},
    {UnaryKind::Sign, 2.5, 1},
    {UnaryKind::Sign, kNan, kNan},
    {UnaryKind::Sin, 0, 0},
    {UnaryKind::Sin, std::numbers::pi_v<float> / 2, 1},
    {UnaryKind::Sin, -std::numbers::pi_v<float> / 6, -0.5},
    {UnaryKind::Cos, 0, 1},
    {UnaryKind::Cos, std::numbers::pi_v<float>, -1},
    {UnaryKind::Cos, std::numbers::pi_v<float> / 3, 0.5},
    {UnaryKind::Softsign, -3, -0.75},
    {UnaryKind::Softsign, 0, 0},
    {UnaryKind::Softsign, 1, 0.5},
};

TEST(Fp32Math, ScalarUnary) {
  for (const UnaryCase& c : kUnaryCases) {
    const float y = scalar::unary(c.x, c.kind);
    if (std::isnan(c.expected)) {
      EXPECT_TRUE(std::isnan(y)) << "kind " << static_cast<int>(c.kind) << " x " << c.x;
    } else if (std::isinf(c.expected)) {
      EXPECT_EQ(y, c.expected) << "kind " << static_cast<int>(c.kind) << " x " << c.x;
    } else {
      EXPECT_NEAR(y, c.expected, 1e-6F) << "kind " << static_cast<int>(c.kind) << " x " << c.x;
    }
  }
}

TEST(Fp32Math, TensorUnary) {
  const FloatTensor x{{2, 2}, {0.5, 1.5, 2.5, -2.5}};
  expectTensor(unary(x, UnaryKind::Round), {2, 2}, {0, 2, 2, -2});
  expectTensor(unary(x, UnaryKind::Abs), {2, 2}, {0.5, 1.5, 2.5, 2.5});
  EXPECT_EQ(errorOf([] {
              unary(FloatTensor{{3}, {1}}, UnaryKind::Exp);
            }),
            "unary: tensor of shape [3] holds 1 values, expected 3");
}

TEST(Fp32Math, PowBroadcasts) {
  const FloatTensor a{{2, 2}, {1, 2, 3, 4}};
  expectTensor(pow(a, FloatTensor{{2}, {2, 0.5}}), {2, 2}, {1, 1.4142135F, 9, 2});
  expectTensor(pow(a, FloatTensor{{2, 1}, {3, -1}}), {2, 2}, {1, 8, 1.0F / 3, 0.25});
  expectTensor(pow(FloatTensor{{}, {2}}, FloatTensor{{3}, {0, 3, -2}}), {3}, {1, 8, 0.25});
  EXPECT_EQ(errorOf([&] {
              pow(a, FloatTensor{{3}, {1, 2, 3}});
            }),
            "pow: shapes [2, 2] and [3] do not broadcast");
}

TEST(Fp32Math, MinMaxOfThreeBroadcastInputs) {
  const FloatTensor a{{2, 1}, {1, 5}};
  const FloatTensor b{{3}, {2, 4, 6}};
  const FloatTensor c{{}, {3}};
  expectTensor(minMax({a, b, c}, true), {2, 3}, {3, 4, 6, 5, 5, 6});
  expectTensor(minMax({a, b, c}, false), {2, 3}, {1, 1, 1, 2, 3, 3});
  expectTensor(minMax({b}, true), {3}, {2, 4, 6});
  // NaN propagates whichever input holds it.
  const FloatTensor nanFirst{{2}, {kNan, 1}};
  const FloatTensor zeros{{2}, {0, 0}};
  for (const bool max : {true, false}) {
    const std::vector<float> y = minMax({zeros, nanFirst}, max).data;
    EXPECT_TRUE(std::isnan(y[0]));
    EXPECT_EQ(y[1], max ? 1 : 0);
    EXPECT_TRUE(std::isnan(minMax({nanFirst, zeros}, max).data[0]));
  }
  EXPECT_EQ(errorOf([] { minMax({}, true); }), "max: no inputs");
  const FloatTensor column{{3, 1}, {1, 2, 3}};
  EXPECT_EQ(errorOf([&] {
              minMax({a, column}, false);
            }),
            "min: shapes [2, 1] and [3, 1] do not broadcast");
}

TEST(Fp32Math, PreluWithChannelSlope) {
  // NCHW [2, 2, 1, 2]; channel 0 slope 0.5, channel 1 slope 0.25.
  const FloatTensor x{{2, 2, 1, 2}, {-2, 2, -4, 4, -6, 6, -8, 8}};
  const std::vector<float> expected{-1, 2, -1, 4, -3, 6, -2, 8};
  expectTensor(prelu(x, FloatTensor{{2, 1, 1}, {0.5, 0.25}}), {2, 2, 1, 2}, expected);
  expectTensor(prelu(x, FloatTensor{{1, 2, 1, 1}, {0.5, 0.25}}), {2, 2, 1, 2}, expected);
  expectTensor(prelu(x, FloatTensor{{}, {0.1F}}), {2, 2, 1, 2},
               {-0.2F, 2, -0.4F, 4, -0.6F, 6, -0.8F, 8});
  EXPECT_EQ(errorOf([] {
              prelu(FloatTensor{{2}, {1, -1}}, FloatTensor{{2, 2}, {1, 2, 3, 4}});
            }),
            "prelu: slope [2, 2] cannot be broadcast to input [2]");
  EXPECT_EQ(errorOf([&] {
              prelu(x, FloatTensor{{3}, {1, 2, 3}});
            }),
            "prelu: shapes [2, 2, 1, 2] and [3] do not broadcast");
}

}  // namespace
}  // namespace npu::golden
