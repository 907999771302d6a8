// fp32 LogSoftmax and Layer/RMS/Group/InstanceNormalization against hand-computed values
// (BatchNormalization and Softmax are in fp32_activation_test.cpp).
#include "npu/golden/fp32_normalization.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;

TEST(Fp32LogSoftmax, AlongEitherAxis) {
  // Rows [0, log 3] (softmax 1/4, 3/4) and [1, 1] (1/2, 1/2).
  const FloatTensor x{{2, 2}, {0, std::log(3.0F), 1, 1}};
  expectTensor(logSoftmax(x), {2, 2}, {-1.3862944F, -0.2876821F, -0.6931472F, -0.6931472F});
  expectTensor(logSoftmax(x, -1), {2, 2}, {-1.3862944F, -0.2876821F, -0.6931472F, -0.6931472F});
  expectTensor(logSoftmax(x, 0), {2, 2}, {-1.3132617F, -0.6450561F, -0.3132617F, -0.7436684F});
  // Shifted by the peak, so large inputs neither overflow nor lose the result.
  expectTensor(logSoftmax(FloatTensor{{2}, {1000, 1000}}), {2}, {-0.6931472F, -0.6931472F});
  EXPECT_EQ(errorOf([&] { logSoftmax(x, 2); }), "logSoftmax: axis 2 is out of range for rank 2");
}

TEST(Fp32LayerNorm, OverTheLastAxis) {
  // Row [1, 2, 3, 4]: mean 2.5, variance 1.25. Row [2, 2, 2, 6]: mean 3, variance 3.
  const FloatTensor x{{2, 4}, {1, 2, 3, 4, 2, 2, 2, 6}};
  const FloatTensor ones{{4}, {1, 1, 1, 1}};
  expectTensor(layerNormalization(x, ones, nullptr, -1, 0.0F), {2, 4},
               {-1.3416408F, -0.4472136F, 0.4472136F, 1.3416408F, -0.5773503F, -0.5773503F,
                -0.5773503F, 1.7320508F});
  const FloatTensor scale{{4}, {2, 1, 1, 0.5}};
  const FloatTensor bias{{4}, {0, 0, 1, 0}};
  expectTensor(layerNormalization(x, scale, &bias, 1, 0.0F), {2, 4},
               {-2.6832816F, -0.4472136F, 1.4472136F, 0.6708204F, -1.1547005F, -0.5773503F,
                0.4226497F, 0.8660254F});
  // Epsilon is added to the variance: [1, -1] has variance 1, so epsilon 3 halves it.
  const FloatTensor one{{}, {1}};
  expectTensor(layerNormalization(FloatTensor{{2}, {1, -1}}, one, nullptr, 0, 3.0F), {2},
               {0.5, -0.5});
}

TEST(Fp32RmsNorm, DividesByTheRootMeanSquareWithoutCentring) {
  // Row [1, 2, 3, 4]: mean square 7.5, rms 2.7386128. Row [3, 4]: 12.5, rms 3.5355339.
  expectTensor(rmsNormalization(FloatTensor{{4}, {1, 2, 3, 4}}, nullptr, -1, 0.0F), {4},
               {0.3651484F, 0.7302967F, 1.0954451F, 1.4605935F});
  const FloatTensor scale{{2}, {2, -1}};
  expectTensor(rmsNormalization(FloatTensor{{1, 2}, {3, 4}}, &scale, 1, 0.0F), {1, 2},
               {1.6970563F, -1.1313708F});
  // Epsilon is added to the mean square: [1, -1] has mean square 1, so epsilon 3 halves it.
  expectTensor(rmsNormalization(FloatTensor{{2}, {1, -1}}, nullptr, 0, 3.0F), {2}, {0.5, -0.5});
  // Over channels: [N=1, C=2, 2 positions]: columns (3, 4) and (1, -1).
  expectTensor(channelRmsNormalization(FloatTensor{{1, 2, 2}, {3, 1, 4, -1}}, 0.0F), {1, 2, 2},
               {0.8485281F, 1, 1.1313708F, -1});
}

TEST(Fp32LayerNorm, OverTheLastTwoAxesWithBroadcastScale) {
  // Blocks [1, 2, 3, 4] (mean 2.5, variance 1.25) and [0, 0, 4, 4] (mean 2, variance 4).
  const FloatTensor x{{2, 2, 2}, {1, 2, 3, 4, 0, 0, 4, 4}};
  const FloatTensor scale{{2}, {2, 3}};      // along the last axis
  const FloatTensor bias{{2, 1}, {10, 20}};  // along the middle axis
  expectTensor(layerNormalization(x, scale, nullptr, -2, 0.0F), {2, 2, 2},
               {-2.6832816F, -1.3416408F, 0.8944272F, 4.0249224F, -2, -3, 2, 3});
  expectTensor(layerNormalization(x, scale, &bias, 1, 0.0F), {2, 2, 2},
               {7.3167184F, 8.6583592F, 20.8944272F, 24.0249224F, 8, 7, 22, 23});
  EXPECT_EQ(errorOf([&] {
              layerNormalization(x, FloatTensor{{3}, {1, 2, 3}}, nullptr, 1);
            }),
            "layerNormalization: shapes [3] and [2, 2] do not broadcast");
  EXPECT_EQ(errorOf([&] { layerNormalization(x, scale, nullptr, 3); }),
            "layerNormalization: axis 3 is out of range for rank 3");
}

// x [2, 4, 2]: batch 0 has channels [0, 2], [4, 6], [1, 1], [1, 5]; batch 1 the same plus 10,
// which normalises to the same values. With two groups, group 0 holds [0, 2, 4, 6] (mean 3,
// variance 5) and group 1 [1, 1, 1, 5] (mean 2, variance 3).
const FloatTensor kGroupInput{{2, 4, 2}, {0, 2, 4, 6, 1, 1, 1, 5, 10, 12, 14, 16, 11, 11, 11, 15}};

std::vector<float> twice(const std::vector<float>& batch) {
  std::vector<float> both = batch;
  both.insert(both.end(), batch.begin(), batch.end());
  return both;
}

TEST(Fp32GroupNorm, PerGroupScale) {
  const std::vector<float> scale{2, -1}, bias{0, 1};
  expectTensor(groupNormalization(kGroupInput, scale, bias, 2, 0.0F), {2, 4, 2},
               twice({-2.6832816F, -0.8944272F, 0.8944272F, 2.6832816F, 1.5773503F, 1.5773503F,
                      1.5773503F, -0.7320508F}));
}

TEST(Fp32GroupNorm, PerChannelScale) {
  const std::vector<float> scale{1, 2, 3, 4}, bias{0, 0, 1, 1};
  expectTensor(groupNormalization(kGroupInput, scale, bias, 2, 0.0F), {2, 4, 2},
               twice({-1.3416408F, -0.4472136F, 0.8944272F, 2.6832816F, -0.7320508F, -0.7320508F,
                      -1.3094011F, 7.9282032F}));
  // One group is a LayerNorm over [C, ...] with a per-channel affine.
  const std::vector<float> ones{1, 1, 1, 1}, zeros{0, 0, 0, 0};
  const FloatTensor y = groupNormalization(kGroupInput, ones, zeros, 1, 0.0F);
  EXPECT_NEAR(y.data[0], (0 - 2.5) / std::sqrt(4.25), 1e-6);
}

TEST(Fp32GroupNorm, RejectsBadGroupsAndParameters) {
  const std::vector<float> two{1, 1}, three{1, 1, 1};
  EXPECT_EQ(errorOf([&] { groupNormalization(kGroupInput, three, three, 3); }),
            "groupNormalization: 4 channels of [2, 4, 2] are not divisible into 3 groups");
  EXPECT_EQ(errorOf([&] { groupNormalization(kGroupInput, two, two, 0); }),
            "groupNormalization: numGroups 0 must be >= 1");
  EXPECT_EQ(errorOf([&] { groupNormalization(kGroupInput, three, two, 2); }),
            "groupNormalization: scale/bias have 3/2 values, expected 2 (one per group) or 4 (one "
            "per channel)");
  EXPECT_EQ(errorOf([&] {
              groupNormalization(FloatTensor{{4}, {1, 2, 3, 4}}, two, two, 2);
            }),
            "groupNormalization: input must have rank >= 2, got [4]");
}

TEST(Fp32InstanceNorm, PerChannelOverSpatial) {
  // Channel [1, 2, 3]: mean 2, variance 2/3. Channel [0, 0, 6]: mean 2, variance 8.
  const FloatTensor x{{1, 2, 3}, {1, 2, 3, 0, 0, 6}};
  const std::vector<float> scale{1, 2}, bias{0, -1};
  expectTensor(instanceNormalization(x, scale, bias, 0.0F), {1, 2, 3},
               {-1.2247449F, 0, 1.2247449F, -2.4142136F, -2.4142136F, 1.8284271F});
  // Default epsilon 1e-5 is applied: variance 2/3 becomes 2/3 + 1e-5.
  const std::vector<float> unit{1, 1}, none{0, 0};
  EXPECT_NEAR(instanceNormalization(x, unit, none).data[0], -1 / std::sqrt(2.0 / 3 + 1e-5), 2e-7);
  const std::vector<float> one{1};
  EXPECT_EQ(errorOf([&] { instanceNormalization(x, one, bias); }),
            "instanceNormalization: input [1, 2, 3] has 2 channels but scale/bias have 1/2");
}

}  // namespace
}  // namespace npu::golden
