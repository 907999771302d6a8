// Quantize/dequantize rounding, activation clip ranges and the LUT builder.
#include "npu/golden/quantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "fp32_test_util.h"
#include "npu/golden/activation_range.h"
#include "npu/golden/fp32_activation.h"
#include "npu/golden/lut.h"

namespace npu::golden {
namespace {

TEST(Quantize, RoundsHalfAwayFromZeroAndClamps) {
  const QuantParams unit{1.0F, 0};
  EXPECT_EQ(quantizeValue(2.5F, unit), 3);
  EXPECT_EQ(quantizeValue(-2.5F, unit), -3);
  EXPECT_EQ(quantizeValue(2.4999F, unit), 2);
  EXPECT_EQ(quantizeValue(0.5F, {1.0F, -128}), -127);
  EXPECT_EQ(quantizeValue(1000.0F, unit), 127);
  EXPECT_EQ(quantizeValue(-1000.0F, unit), -128);
  EXPECT_EQ(quantizeValue(std::numeric_limits<float>::infinity(), unit), 127);
  EXPECT_EQ(quantizeValue(std::nanf(""), {1.0F, 5}), 5);
  EXPECT_EQ(quantizeValue(0.75F, {0.5F, 10}), 12);  // 1.5 -> 2, + 10
}

TEST(Quantize, DividesInDouble) {
  // float(0.1) is slightly above 0.1: in double 0.25 / 0.1F = 2.49999996 rounds to 2, while the
  // float quotient is exactly 2.5 and would round to 3. Likewise 1.875 / 0.05F = 37.4999994.
  EXPECT_EQ(quantizeValue(0.25F, {0.1F, 0}), 2);
  EXPECT_EQ(quantizeValue(0.25F, {0.1F, -10}), -8);
  EXPECT_EQ(quantizeValue(1.875F, {0.05F, 0}), 37);
  EXPECT_EQ(quantizeValue(-5.665F, {0.11F, 0}), -51);  // -51.49999993; float: -51.5 -> -52
}

TEST(Quantize, MatchesTheRuleOnRandomAndEdgeValues) {
  // The rule of docs/numerics.md section 2 with the library's round, against quantizeValue.
  const auto rule = [](float x, const QuantParams& p, std::int32_t lo, std::int32_t hi) {
    if (std::isnan(x)) {
      return std::clamp(p.zeroPoint, lo, hi);
    }
    const double q = std::round(static_cast<double>(x) / p.scale) + p.zeroPoint;
    return static_cast<std::int32_t>(
        std::clamp(q, static_cast<double>(lo), static_cast<double>(hi)));
  };
  std::mt19937 rng(4);
  std::normal_distribution<float> normal(0.0F, 50.0F);
  std::uniform_real_distribution<float> scales(1e-4F, 2.0F);
  std::uniform_int_distribution<int> points(-128, 127);
  std::vector<float> values{0.5F,         -0.5F,  1.5F,    -1.5F, 0.49999997F,
                            -0.49999997F, 127.5F, -128.5F, 1e9F,  -1e9F,
                            3e38F,        -3e38F, 1e-40F,  -0.0F, std::nanf("")};
  for (int i = 0; i < 20000; ++i) {
    values.push_back(normal(rng));
  }
  for (float x : values) {
    for (int k = 0; k < 3; ++k) {
      const QuantParams p{k == 0 ? 1.0F : scales(rng), k == 0 ? 0 : points(rng)};
      ASSERT_EQ(quantizeValue(x, p), rule(x, p, -128, 127)) << x << " / " << p.scale;
      ASSERT_EQ(quantizeValue(x, p, -1000000, 1000000), rule(x, p, -1000000, 1000000)) << x;
    }
  }
  // Quotients at the fast path's edge and halves past 2^23, where float steps are 1.
  for (double r : {999999999.5, -999999999.5, 1e9, -1e9, 8388608.5, 16777215.0}) {
    const auto x = static_cast<float>(r);
    EXPECT_EQ(quantizeValue(x, {1.0F, 0}, INT32_MIN, INT32_MAX),
              rule(x, {1.0F, 0}, INT32_MIN, INT32_MAX))
        << r;
  }
}

TEST(Quantize, VectorisedPassMatchesTheScalarRule) {
  // Every clone the CPU runs goes through this loop: the same edge values and random ones, at
  // lengths that leave vector remainders.
  std::mt19937 rng(8);
  std::normal_distribution<float> normal(0.0F, 60.0F);
  std::uniform_real_distribution<float> scales(1e-4F, 2.0F);
  std::uniform_int_distribution<int> points(-128, 127);
  std::vector<float> values{0.5F,
                            -0.5F,
                            1.5F,
                            -1.5F,
                            0.49999997F,
                            -0.49999997F,
                            127.5F,
                            -128.5F,
                            1e9F,
                            -1e9F,
                            3e38F,
                            -3e38F,
                            1e-40F,
                            -0.0F,
                            std::nanf(""),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.25F,
                            1.875F,
                            -5.665F};
  for (int i = 0; i < 5000; ++i) {
    values.push_back(normal(rng));
  }
  for (int trial = 0; trial < 40; ++trial) {
    const QuantParams p{trial == 0 ? 0.1F : scales(rng), trial == 0 ? 0 : points(rng)};
    const std::size_t n = values.size() - static_cast<std::size_t>(trial);
    const std::span<const float> in(values.data(), n);
    std::vector<std::int8_t> out(n);
    quantizeValues(in, p, out);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], quantizeValue(values[i], p))
          << values[i] << " / " << p.scale << " + " << p.zeroPoint;
    }
  }
}

TEST(Quantize, TensorsRoundTrip) {
  const QuantParams q{0.5F, -3};
  const Int8Tensor i = quantize(FloatTensor{{2, 2}, {0.0F, 1.0F, -1.25F, 100.0F}}, q);
  EXPECT_EQ(i.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(i.data, (std::vector<std::int8_t>{-3, -1, -6, 127}));  // -2.5 -> -3
  testing::expectTensor(dequantize(i, q), {2, 2}, {0.0F, 1.0F, -1.5F, 65.0F});
  EXPECT_EQ(testing::errorOf([] {
              quantize(FloatTensor{{1}, {0}}, {0.0F, 0});
            }),
            "quantize: scale 0 must be positive and finite");
  EXPECT_EQ(testing::errorOf([] {
              quantize(FloatTensor{{1}, {0}}, {1.0F, 128});
            }),
            "quantize: zero point 128 is outside [-128, 127]");
}

TEST(ActivationClipRange, ReluRelu6AndClip) {
  using A = FusedActivation;
  EXPECT_EQ(activationClipRange(A::None, {0.1F, 3}), (ClipRange{-128, 127}));
  EXPECT_EQ(activationClipRange(A::Relu, {0.1F, 10}), (ClipRange{10, 127}));
  EXPECT_EQ(activationClipRange(A::Relu, {0.1F, -128}), (ClipRange{-128, 127}));
  EXPECT_EQ(activationClipRange(A::Relu, {0.1F, 127}), (ClipRange{127, 127}));
  EXPECT_EQ(activationClipRange(A::Relu6, {0.1F, 0}), (ClipRange{0, 60}));
  EXPECT_EQ(activationClipRange(A::Relu6, {6.0F / 255.0F, -128}), (ClipRange{-128, 127}));
  EXPECT_EQ(activationClipRange(A::Relu6, {0.01F, 0}), (ClipRange{0, 127}));
  EXPECT_EQ(activationClipRange(A::Clip, {0.01F, 0}, -1.0F, 1.0F), (ClipRange{-100, 100}));
  EXPECT_EQ(activationClipRange(A::Clip, {0.1F, 0}, -20.0F, 20.0F), (ClipRange{-128, 127}));
  EXPECT_EQ(testing::errorOf([] {
              activationClipRange(A::Clip, {0.1F, 0}, 1.0F, -1.0F);
            }),
            "activationClipRange: clip min 1 is above max -1");
}

TEST(Lut, BuilderEvaluatesEveryInputValue) {
  const QuantParams q{0.1F, 5};
  const Lut identity = buildLut([](float x) { return x; }, q, q);
  const Lut relu = buildLut(scalar::relu, q, q);
  for (int v = -128; v <= 127; ++v) {
    EXPECT_EQ(lookUp(identity, v), v);
    EXPECT_EQ(lookUp(relu, v), std::max(v, 5));
  }
  // Sigmoid into the conventional [0, 1) output quantization (1/256, -128).
  const Lut sigmoid = buildLut(scalar::sigmoid, {0.1F, 0}, {1.0F / 256.0F, -128});
  EXPECT_EQ(lookUp(sigmoid, 0), 0);        // 0.5 * 256 - 128
  EXPECT_EQ(lookUp(sigmoid, 10), 59);      // sigmoid(1) * 256 = 187.1
  EXPECT_EQ(lookUp(sigmoid, -128), -128);  // sigmoid(-12.8) * 256 = 0.0007
  EXPECT_EQ(lookUp(sigmoid, 127), 127);    // 255.999 clamps
  const Int8Tensor y = applyLut(Int8Tensor{{3}, {0, 10, -128}}, sigmoid);
  EXPECT_EQ(y.data, (std::vector<std::int8_t>{0, 59, -128}));
}

}  // namespace
}  // namespace npu::golden
