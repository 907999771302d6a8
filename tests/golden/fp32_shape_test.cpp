// fp32 data movement: reshape, flatten, transpose, squeeze/unsqueeze, concat, pad.
#include "npu/golden/fp32_shape.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

using V = std::vector<std::int64_t>;

TEST(Fp32Shape, Reshape) {
  EXPECT_EQ(reshape(iota({2, 3, 4}), V{0, -1}).shape, (V{2, 12}));
  EXPECT_EQ(reshape(iota({2, 3, 4}), V{4, 6}).shape, (V{4, 6}));
  EXPECT_EQ(reshapedShape(V{0, 3}, V{0, 3}, true), (V{0, 3}));
  EXPECT_EQ(errorOf([] {
              reshape(iota({2, 3}), V{4, -1});
            }),
            "reshape: cannot infer -1 in [4, -1] from input [2, 3]");
  EXPECT_EQ(errorOf([] {
              reshape(iota({2, 3}), V{5});
            }),
            "reshape: input [2, 3] has 6 elements, target [5] has 5");
}

TEST(Fp32Shape, Flatten) {
  EXPECT_EQ(flatten(iota({2, 3, 4}), 0).shape, (V{1, 24}));
  EXPECT_EQ(flatten(iota({2, 3, 4})).shape, (V{2, 12}));
  EXPECT_EQ(flatten(iota({2, 3, 4}), -1).shape, (V{6, 4}));
  EXPECT_EQ(flatten(iota({2, 3, 4}), 3).shape, (V{24, 1}));
}

TEST(Fp32Shape, Transpose) {
  expectTensor(transpose(iota({2, 3})), {3, 2}, {0, 3, 1, 4, 2, 5});
  // NCHW -> NHWC.
  expectTensor(transpose(iota({1, 2, 2, 2}), V{0, 2, 3, 1}), {1, 2, 2, 2},
               {0, 4, 1, 5, 2, 6, 3, 7});
  EXPECT_EQ(errorOf([] {
              transpose(iota({2, 3}), V{0, 0});
            }),
            "transpose: perm [0, 0] repeats axis 0");
}

TEST(Fp32Shape, SqueezeAndUnsqueeze) {
  EXPECT_EQ(squeeze(iota({1, 3, 1, 2})).shape, (V{3, 2}));
  EXPECT_EQ(squeeze(iota({1, 3, 1, 2}), V{-2}).shape, (V{1, 3, 2}));
  EXPECT_EQ(unsqueeze(iota({3, 2}), V{0, 3}).shape, (V{1, 3, 2, 1}));
  EXPECT_EQ(unsqueeze(iota({3}), V{-1}).shape, (V{3, 1}));
  EXPECT_EQ(errorOf([] {
              squeeze(iota({1, 3}), V{1});
            }),
            "squeeze: axis 1 of [1, 3] has size 3, not 1");
}

TEST(Fp32Shape, Concat) {
  const FloatTensor a = iota({1, 2, 2});
  const FloatTensor b = iota({1, 1, 2}, 10);
  expectTensor(concat({a, b}, 1), {1, 3, 2}, {0, 1, 2, 3, 10, 11});
  expectTensor(concat({a, a}, -1), {1, 2, 4}, {0, 1, 0, 1, 2, 3, 2, 3});
  EXPECT_EQ(errorOf([&] {
              concat({a, b}, 2);
            }),
            "concat: input [1, 1, 2] does not match [1, 2, 2] outside axis 2");
}

TEST(Fp32Shape, PadModes) {
  const FloatTensor x{{3}, {1, 2, 3}};
  expectTensor(pad(x, V{2, 2}, PadMode::Constant, 9), {7}, {9, 9, 1, 2, 3, 9, 9});
  expectTensor(pad(x, V{2, 2}, PadMode::Reflect), {7}, {3, 2, 1, 2, 3, 2, 1});
  expectTensor(pad(x, V{2, 2}, PadMode::Edge), {7}, {1, 1, 1, 2, 3, 3, 3});
  expectTensor(pad(x, V{-1, 0}), {2}, {2, 3});
  expectTensor(pad(iota({2, 2}, 1), V{1, 0, 0, 1}), {3, 3}, {0, 0, 0, 1, 2, 0, 3, 4, 0});
  EXPECT_EQ(errorOf([&] {
              pad(x, V{3, 0}, PadMode::Reflect);
            }),
            "pad: reflect pads [3, 0] must be smaller than axis 0 of size 3");
  EXPECT_EQ(errorOf([&] { pad(x, V{1}); }), "pad: 1 pads given for rank 1 (need 2)");
}

}  // namespace
}  // namespace npu::golden
