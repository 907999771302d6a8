// fp32 Conv and ConvTranspose on hand-computed cases: padding, strides, dilation, groups.
#include "npu/golden/fp32_conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fp32_test_util.h"
#include "npu/golden/plain_kernels.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

TEST(Fp32Conv, SamePaddingSumsTheNeighbourhood) {
  const FloatTensor x = iota({1, 1, 3, 3});
  const FloatTensor w = makeFloatTensor({1, 1, 3, 3}, 1.0F);
  const std::vector<float> bias{1.0F};
  Conv2dParams p;
  p.pads = {1, 1, 1, 1};
  expectTensor(conv2d(x, w, bias, p), {1, 1, 3, 3}, {9, 16, 13, 22, 37, 28, 21, 34, 25});
}

TEST(Fp32Conv, StrideWithAsymmetricPads) {
  const FloatTensor x = iota({1, 1, 4, 4});
  const FloatTensor w = makeFloatTensor({1, 1, 2, 2}, 1.0F);
  Conv2dParams p;
  p.strides = {2, 2};
  p.pads = {1, 0, 0, 1};  // top, left, bottom, right
  expectTensor(conv2d(x, w, {}, p), {1, 1, 2, 2}, {1, 5, 26, 34});
}

TEST(Fp32Conv, Dilation) {
  const FloatTensor x = iota({1, 1, 5, 5});
  const FloatTensor w = makeFloatTensor({1, 1, 2, 2}, 1.0F);
  Conv2dParams p;
  p.dilations = {2, 2};
  expectTensor(conv2d(x, w, {}, p), {1, 1, 3, 3}, {24, 28, 32, 44, 48, 52, 64, 68, 72});
}

TEST(Fp32Conv, GroupsReadTheirOwnChannels) {
  const FloatTensor x{{1, 2, 1, 1}, {1, 2}};
  const FloatTensor w{{4, 1, 1, 1}, {1, 2, 3, 4}};
  Conv2dParams p;
  p.group = 2;
  expectTensor(conv2d(x, w, {}, p), {1, 4, 1, 1}, {1, 2, 6, 8});
}

TEST(Fp32Conv, MultiChannelDotProduct) {
  // Two input channels, two output channels, 1x1 kernel, batch 2.
  const FloatTensor x{{2, 2, 1, 1}, {1, 2, 3, 4}};
  const FloatTensor w{{2, 2, 1, 1}, {1, 10, -1, 1}};
  expectTensor(conv2d(x, w, {}, {}), {2, 2, 1, 1}, {21, 1, 43, 1});
}

TEST(Fp32Conv, RejectsMismatchedShapes) {
  const FloatTensor x = iota({1, 3, 4, 4});
  const FloatTensor w = makeFloatTensor({8, 4, 3, 3});
  EXPECT_EQ(errorOf([&] { conv2d(x, w, {}, {}); }),
            "conv2d: input [1, 3, 4, 4] has 3 channels, but weight [8, 4, 3, 3] with group 1 "
            "expects 4");
  const FloatTensor w3 = makeFloatTensor({8, 3, 5, 5});
  EXPECT_EQ(errorOf([&] { conv2d(x, w3, {}, {}); }),
            "conv2d: kernel 5x5 (dilated 5x5) does not fit the padded input [1, 3, 4, 4]");
  const std::vector<float> bias(3);
  EXPECT_EQ(errorOf([&] {
              conv2d(x, makeFloatTensor({8, 3, 1, 1}), bias, {});
            }),
            "conv2d: bias has 3 values but there are 8 output channels");
}

TEST(Fp32ConvTranspose, StrideTwoExpandsEachPixel) {
  const FloatTensor x{{1, 1, 2, 2}, {1, 2, 3, 4}};
  const FloatTensor w = makeFloatTensor({1, 1, 2, 2}, 1.0F);
  ConvTranspose2dParams p;
  p.strides = {2, 2};
  expectTensor(convTranspose2d(x, w, {}, p), {1, 1, 4, 4},
               {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(Fp32ConvTranspose, OverlapPadsAndOutputPadding) {
  const FloatTensor x{{1, 1, 2, 2}, {1, 2, 3, 4}};
  const FloatTensor w = makeFloatTensor({1, 1, 2, 2}, 1.0F);
  expectTensor(convTranspose2d(x, w, {}, {}), {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4});
  ConvTranspose2dParams cropped;
  cropped.pads = {1, 1, 1, 1};
  expectTensor(convTranspose2d(x, w, {}, cropped), {1, 1, 1, 1}, {10});
  ConvTranspose2dParams extended;
  extended.strides = {2, 2};
  extended.outputPadding = {1, 0};
  const std::vector<float> bias{0.5F};
  expectTensor(convTranspose2d(x, w, bias, extended), {1, 1, 5, 4},
               {1.5, 1.5, 2.5, 2.5, 1.5, 1.5, 2.5, 2.5, 3.5, 3.5,
                4.5, 4.5, 3.5, 3.5, 4.5, 4.5, 0.5, 0.5, 0.5, 0.5});
}

TEST(Fp32ConvTranspose, Groups) {
  const FloatTensor x{{1, 2, 1, 1}, {1, 2}};
  const FloatTensor w{{2, 1, 1, 1}, {3, 4}};
  ConvTranspose2dParams p;
  p.group = 2;
  expectTensor(convTranspose2d(x, w, {}, p), {1, 2, 1, 1}, {3, 8});
  EXPECT_EQ(errorOf([&] {
              convTranspose2d(x, makeFloatTensor({3, 1, 1, 1}), {}, {});
            }),
            "convTranspose2d: input [1, 2, 1, 1] has 2 channels, but weight [3, 1, 1, 1] expects "
            "3");
}

}  // namespace
}  // namespace npu::golden

namespace npu::golden {
namespace {

/// The ONNX definition as a plain loop nest: bias, then input channel, kernel row, kernel column
/// per output element (the order plain::conv2d promises, so its results must be equal bit for
/// bit; conv2d, on oneDNN, within the rounding bound).
FloatTensor definitionConv(const FloatTensor& x, const FloatTensor& w, std::span<const float> b,
                           const Conv2dParams& p) {
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const std::int64_t m = w.shape[0], cg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  const std::int64_t oh =
      (h + p.pads[0] + p.pads[2] - p.dilations[0] * (kh - 1) - 1) / p.strides[0] + 1;
  const std::int64_t ow =
      (wd + p.pads[1] + p.pads[3] - p.dilations[1] * (kw - 1) - 1) / p.strides[1] + 1;
  FloatTensor y = makeFloatTensor({n, m, oh, ow});
  for (std::int64_t bi = 0; bi < n; ++bi) {
    for (std::int64_t oc = 0; oc < m; ++oc) {
      const std::int64_t g = oc / (m / p.group);
      for (std::int64_t oy = 0; oy < oh; ++oy) {
        for (std::int64_t ox = 0; ox < ow; ++ox) {
          float acc = b.empty() ? 0.0F : b[static_cast<std::size_t>(oc)];
          for (std::int64_t ic = 0; ic < cg; ++ic) {
            for (std::int64_t ky = 0; ky < kh; ++ky) {
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t iy = oy * p.strides[0] - p.pads[0] + ky * p.dilations[0];
                const std::int64_t ix = ox * p.strides[1] - p.pads[1] + kx * p.dilations[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) {
                  continue;
                }
                acc +=
                    w.data[static_cast<std::size_t>(((oc * cg + ic) * kh + ky) * kw + kx)] *
                    x.data[static_cast<std::size_t>(((bi * c + g * cg + ic) * h + iy) * wd + ix)];
              }
            }
          }
          y.data[static_cast<std::size_t>(((bi * m + oc) * oh + oy) * ow + ox)] = acc;
        }
      }
    }
  }
  return y;
}

TEST(Fp32Conv, RandomConfigurationsMatchTheDefinition) {
  std::mt19937 rng(11);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  std::normal_distribution<float> normal;
  for (int trial = 0; trial < 300; ++trial) {
    Conv2dParams p;
    p.group = pick(1, 3);
    const std::int64_t c = p.group * pick(1, 4), m = p.group * pick(1, 6);
    const std::int64_t kh = pick(1, 4), kw = pick(1, 4);
    p.strides = {pick(1, 3), pick(1, 3)};
    p.dilations = {pick(1, 2), pick(1, 2)};
    p.pads = {pick(0, 3), pick(0, 3), pick(0, 3), pick(0, 3)};
    const std::int64_t h = pick(1, 12), wd = pick(1, 12);
    if (h + p.pads[0] + p.pads[2] < p.dilations[0] * (kh - 1) + 1 ||
        wd + p.pads[1] + p.pads[3] < p.dilations[1] * (kw - 1) + 1) {
      continue;
    }
    FloatTensor x = makeFloatTensor({pick(1, 2), c, h, wd});
    FloatTensor w = makeFloatTensor({m, c / p.group, kh, kw});
    std::vector<float> bias(static_cast<std::size_t>(pick(0, 1) * m));
    for (float& v : x.data)
      v = normal(rng);
    for (float& v : w.data)
      v = normal(rng);
    for (float& v : bias)
      v = normal(rng);
    const FloatTensor expected = definitionConv(x, w, bias, p);
    const FloatTensor actual = plain::conv2d(x, w, bias, p);
    ASSERT_EQ(actual.shape, expected.shape) << "trial " << trial;
    ASSERT_EQ(actual.data, expected.data) << "trial " << trial;
    // The oneDNN path sums in its own order: within 2 K 2^-24 sum |terms| (docs/numerics.md).
    const FloatTensor fast = conv2d(x, w, bias, p);
    ASSERT_EQ(fast.shape, expected.shape) << "trial " << trial;
    for (float& v : x.data)
      v = std::fabs(v);
    for (float& v : w.data)
      v = std::fabs(v);
    for (float& v : bias)
      v = std::fabs(v);
    const FloatTensor magnitude = definitionConv(x, w, bias, p);
    const double terms = static_cast<double>(c / p.group * kh * kw + 1);
    for (std::size_t i = 0; i < expected.data.size(); ++i) {
      ASSERT_LE(std::fabs(static_cast<double>(fast.data[i]) - expected.data[i]),
                2.0 * terms * std::ldexp(1.0, -24) * magnitude.data[i])
          << "trial " << trial << ", element " << i;
    }
  }
}

}  // namespace
}  // namespace npu::golden
