// fp32 Conv and ConvTranspose on hand-computed cases: padding, strides, dilation, groups.
#include "npu/golden/fp32_conv.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

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
