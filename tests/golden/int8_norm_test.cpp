// int8 softmax, LayerNorm and RMSNorm rows: hand-worked rows, the extremes of their bounds, and
// agreement with the fp32 formulas on random rows (to within the int8 output's resolution).
#include "npu/golden/int8_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "npu/support/error.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;

TEST(Int8Softmax, EqualValuesShareTheRowEvenly) {
  SoftmaxInt8Params p;
  p.expTable = softmaxExpTable(0.1);
  EXPECT_EQ(p.expTable[0], 32768);
  // Four equal values: e = 2^15 each, S = 2^17, R = 2^22, y = (2^37 + 2^30) >> 31 = 64 -> -64.
  const Int8Tensor y = softmaxRowsInt8({{1, 4}, {5, 5, 5, 5}}, p);
  EXPECT_EQ(y.data, (Bytes{-64, -64, -64, -64}));
  // One value alone has probability 1: 256 - 128 = 128 clips to 127.
  EXPECT_EQ(softmaxRowsInt8({{1, 1}, {-100}}, p).data, (Bytes{127}));
}

TEST(Int8Softmax, AnyTableKeepsTheOutputInRange) {
  SoftmaxInt8Params p;  // an all-zero table: S = 0, R = 0
  EXPECT_EQ(softmaxRowsInt8({{1, 3}, {1, 2, 3}}, p).data, (Bytes{-128, -128, -128}));
  p.expTable.fill(65535);  // the largest entries over the longest row
  const Int8Tensor y = softmaxRowsInt8(makeInt8Tensor({1, 4095}, 7), p);
  for (const std::int8_t v : y.data) {
    EXPECT_EQ(v, -128);  // 256 / 4095 rounds to 0
  }
}

TEST(Int8Softmax, FollowsTheFloatSoftmaxWithinOneCode) {
  std::mt19937 rng(7);
  const double scale = 0.06;
  SoftmaxInt8Params p;
  p.expTable = softmaxExpTable(scale);
  for (int row = 0; row < 200; ++row) {
    const auto length = std::uniform_int_distribution<std::int64_t>(1, 400)(rng);
    Int8Tensor x = makeInt8Tensor({length});
    std::vector<double> real(static_cast<std::size_t>(length));
    double sum = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      x.data[static_cast<std::size_t>(j)] =
          static_cast<std::int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
    }
    const std::int8_t m = *std::max_element(x.data.begin(), x.data.end());
    for (std::int64_t j = 0; j < length; ++j) {
      real[static_cast<std::size_t>(j)] =
          std::exp((x.data[static_cast<std::size_t>(j)] - m) * scale);
      sum += real[static_cast<std::size_t>(j)];
    }
    const Int8Tensor y = softmaxRowsInt8(x, p);
    for (std::int64_t j = 0; j < length; ++j) {
      const double expected = std::min(real[static_cast<std::size_t>(j)] / sum * 256.0, 255.0);
      EXPECT_NEAR(y.data[static_cast<std::size_t>(j)] + 128, expected, 1.0)
          << "row " << row << " position " << j;
    }
  }
}

TEST(Int8LayerNorm, NormalisesAHandWorkedRow) {
  // v = x - zp = (-3, -1, 1, 3): sum 0, d = 4 * v = (-12, -4, 4, 12), V = 320, r = 17
  // (17^2 = 289 <= 320 < 324), R = 2^46 / 17, t = d / 17 in Q24.
  LayerNormInt8Params p;
  p.inputZeroPoint = 10;
  const double outputScale = 0.05;
  for (int j = 0; j < 4; ++j) {
    p.positions.push_back(layerNormPosition(1.0, 0.0, 4, outputScale));
  }
  const Int8Tensor y = layerNormRowsInt8({{4}, {7, 9, 11, 13}}, p);
  // y = t * sqrt(4) / (0.05 * 2^24) = d / 17 * 40: -28.2, -9.4, 9.4, 28.2 (the float LayerNorm
  // gives -26.8, -8.9, 8.9, 26.8: r = 17 floors sqrt(320) = 17.9 at this tiny variance).
  EXPECT_EQ(y.data, (Bytes{-28, -9, 9, 28}));
  // A negative gamma mirrors it; beta shifts it by beta / s_y codes.
  for (auto& position : p.positions) {
    position = layerNormPosition(-1.0, 0.5, 4, outputScale);
  }
  EXPECT_EQ(layerNormRowsInt8({{4}, {7, 9, 11, 13}}, p).data, (Bytes{38, 19, 1, -18}));
}

TEST(Int8LayerNorm, AConstantRowGivesItsBias) {
  LayerNormInt8Params p;  // V = 0 and E = 0: r = 0, R = 0, t = 0
  p.positions = {{1 << 30, 0, 7}, {1 << 30, 0, -3}};
  p.outputZeroPoint = 2;
  EXPECT_EQ(layerNormRowsInt8({{2}, {5, 5}}, p).data, (Bytes{9, -1}));
}

TEST(Int8LayerNorm, FollowsTheFloatLayerNorm) {
  std::mt19937 rng(11);
  const double inputScale = 0.03;
  const double outputScale = 0.02;
  const double epsilon = 1e-5;
  for (int row = 0; row < 100; ++row) {
    const auto length = std::uniform_int_distribution<std::int64_t>(2, 768)(rng);
    const std::int32_t zp = std::uniform_int_distribution<int>(-20, 20)(rng);
    Int8Tensor x = makeInt8Tensor({length});
    std::normal_distribution<double> value(0, std::uniform_real_distribution<double>(2, 40)(rng));
    std::vector<double> gamma(static_cast<std::size_t>(length));
    std::vector<double> beta(static_cast<std::size_t>(length));
    LayerNormInt8Params p;
    p.inputZeroPoint = zp;
    p.epsilonTerm = layerNormEpsilonTerm(length, epsilon, inputScale);
    for (std::int64_t j = 0; j < length; ++j) {
      x.data[static_cast<std::size_t>(j)] =
          static_cast<std::int8_t>(std::clamp(std::lround(value(rng)) + zp, -128L, 127L));
      gamma[static_cast<std::size_t>(j)] = std::uniform_real_distribution<double>(-1.2, 1.2)(rng);
      beta[static_cast<std::size_t>(j)] = std::uniform_real_distribution<double>(-0.3, 0.3)(rng);
      p.positions.push_back(layerNormPosition(gamma[static_cast<std::size_t>(j)],
                                              beta[static_cast<std::size_t>(j)], length,
                                              outputScale));
    }
    double mean = 0;
    for (const std::int8_t v : x.data) {
      mean += (v - zp) * inputScale;
    }
    mean /= static_cast<double>(length);
    double variance = 0;
    for (const std::int8_t v : x.data) {
      variance += std::pow((v - zp) * inputScale - mean, 2);
    }
    variance /= static_cast<double>(length);
    const Int8Tensor y = layerNormRowsInt8(x, p);
    for (std::int64_t j = 0; j < length; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double real =
          ((x.data[k] - zp) * inputScale - mean) / std::sqrt(variance + epsilon) * gamma[k] +
          beta[k];
      const double expected = std::clamp(real / outputScale, -128.0, 127.0);
      EXPECT_NEAR(y.data[k], expected, 1.0) << "row " << row << " position " << j;
    }
  }
}

TEST(Int8RmsNorm, NormalisesAHandWorkedRowWithoutCentringIt) {
  // v = x - zp = (1, 2, 3, 4): no mean is taken, d = 4 * v = (4, 8, 12, 16), V = 480, r = 21
  // (441 <= 480 < 484), R = 2^46 / 21 = 3350892579888, t = (d * R + 2^21) >> 22.
  LayerNormInt8Params p;
  p.inputZeroPoint = 10;
  for (int j = 0; j < 4; ++j) {
    p.positions.push_back(layerNormPosition(1.0, 0.0, 4, 0.05));
  }
  // y = t * 40 / 2^24 = d / 21 * 40: 7.6, 15.2, 22.9, 30.5 (the float RMSNorm v / rms(v) / 0.05
  // gives 7.3, 14.6, 21.9, 29.2; the floored root is 21, not sqrt(480) = 21.9).
  EXPECT_EQ(rmsNormRowsInt8({{4}, {11, 12, 13, 14}}, p).data, (Bytes{8, 15, 23, 30}));
  // LayerNorm of the same row centres it first: a different answer.
  EXPECT_NE(layerNormRowsInt8({{4}, {11, 12, 13, 14}}, p).data, (Bytes{8, 15, 23, 30}));
}

TEST(Int8RmsNorm, FollowsTheFloatRmsNorm) {
  std::mt19937 rng(12);
  const double inputScale = 0.04;
  const double outputScale = 0.03;
  const double epsilon = 1e-6;
  for (int row = 0; row < 100; ++row) {
    const auto length = std::uniform_int_distribution<std::int64_t>(2, 4095)(rng);
    const std::int32_t zp = std::uniform_int_distribution<int>(-20, 20)(rng);
    Int8Tensor x = makeInt8Tensor({length});
    std::normal_distribution<double> value(std::uniform_real_distribution<double>(-10, 10)(rng),
                                           std::uniform_real_distribution<double>(2, 40)(rng));
    std::vector<double> gamma(static_cast<std::size_t>(length));
    LayerNormInt8Params p;
    p.inputZeroPoint = zp;
    p.epsilonTerm = layerNormEpsilonTerm(length, epsilon, inputScale);
    for (std::int64_t j = 0; j < length; ++j) {
      x.data[static_cast<std::size_t>(j)] =
          static_cast<std::int8_t>(std::clamp(std::lround(value(rng)) + zp, -128L, 127L));
      gamma[static_cast<std::size_t>(j)] = std::uniform_real_distribution<double>(-1.2, 1.2)(rng);
      p.positions.push_back(
          layerNormPosition(gamma[static_cast<std::size_t>(j)], 0.0, length, outputScale));
    }
    double meanSquare = 0;
    for (const std::int8_t v : x.data) {
      meanSquare += std::pow((v - zp) * inputScale, 2);
    }
    meanSquare /= static_cast<double>(length);
    const Int8Tensor y = rmsNormRowsInt8(x, p);
    for (std::int64_t j = 0; j < length; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double real =
          (x.data[k] - zp) * inputScale / std::sqrt(meanSquare + epsilon) * gamma[k];
      EXPECT_NEAR(y.data[k], std::clamp(real / outputScale, -128.0, 127.0), 1.0)
          << "row " << row << " position " << j;
    }
  }
}

TEST(Int8Norm, RejectsRowsItCannotHold) {
  SoftmaxInt8Params p;
  EXPECT_THROW(softmaxRowsInt8(makeInt8Tensor({1, 4096}), p), Error);
  LayerNormInt8Params ln;
  ln.positions.resize(3);
  EXPECT_THROW(layerNormRowsInt8(makeInt8Tensor({2, 4}), ln), Error);
  EXPECT_THROW(rmsNormRowsInt8(makeInt8Tensor({2, 4}), ln), Error);
  EXPECT_THROW(softmaxExpTable(0.0), Error);
}

}  // namespace
}  // namespace npu::golden
