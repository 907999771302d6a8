// fp32 data movement: reshape, flatten, transpose, squeeze/unsqueeze, concat, pad,
// DepthToSpace and SpaceToDepth.
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

TEST(Fp32Shape, DepthToSpaceModes) {
  // Eight channels of one pixel, blocksize 2: DCR reads channels as [b, b, 2], CRD as [2, b, b].
  expectTensor(depthToSpace(iota({1, 8, 1, 1}), 2), {1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  expectTensor(depthToSpace(iota({1, 8, 1, 1}), 2, true), {1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // out[h * 2 + i, w * 2 + j] = in[i * 2 + j, h, w] = (i * 2 + j) * 4 + h * 2 + w.
  const std::vector<float> spread{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15};
  expectTensor(depthToSpace(iota({1, 4, 2, 2}), 2), {1, 1, 4, 4}, spread);
  expectTensor(depthToSpace(iota({1, 4, 2, 2}), 2, true), {1, 1, 4, 4}, spread);
  expectTensor(depthToSpace(iota({2, 3, 1, 2}), 1), {2, 3, 1, 2}, iota({2, 3, 1, 2}).data);
  EXPECT_EQ(depthToSpace(makeFloatTensor({1, 0, 2, 3}), 3).shape, (V{1, 0, 6, 9}));
}

TEST(Fp32Shape, SpaceToDepthInvertsDcr) {
  // Output channel (i * 2 + j) * 2 + c holds in[c, i, j].
  expectTensor(spaceToDepth(iota({1, 2, 2, 2}), 2), {1, 8, 1, 1}, {0, 4, 1, 5, 2, 6, 3, 7});
  const std::vector<float> spread{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15};
  expectTensor(spaceToDepth(FloatTensor{{1, 1, 4, 4}, spread}, 2), {1, 4, 2, 2},
               iota({1, 4, 2, 2}).data);
  const FloatTensor x = iota({2, 8, 2, 3});
  expectTensor(spaceToDepth(depthToSpace(x, 2), 2), {2, 8, 2, 3}, x.data);
  const FloatTensor image = iota({2, 3, 4, 6});
  expectTensor(depthToSpace(spaceToDepth(image, 2), 2), {2, 3, 4, 6}, image.data);
  // CRD is not the inverse once there is more than one output channel.
  EXPECT_NE(spaceToDepth(depthToSpace(x, 2, true), 2).data, x.data);
}

TEST(Fp32Shape, BlockOpsRejectBadInput) {
  EXPECT_EQ(errorOf([] {
              depthToSpace(iota({1, 3, 2, 2}), 2);
            }),
            "depthToSpace: 3 channels of [1, 3, 2, 2] are not divisible by blocksize 2 squared");
  EXPECT_EQ(errorOf([] {
              depthToSpace(iota({1, 8, 2, 2}), 4);
            }),
            "depthToSpace: 8 channels of [1, 8, 2, 2] are not divisible by blocksize 4 squared");
  EXPECT_EQ(errorOf([] {
              spaceToDepth(iota({1, 1, 3, 4}), 2);
            }),
            "spaceToDepth: height 3 and width 4 of [1, 1, 3, 4] are not divisible by blocksize 2");
  EXPECT_EQ(errorOf([] {
              spaceToDepth(iota({1, 1, 2, 2}), 0);
            }),
            "spaceToDepth: blocksize 0 must be >= 1");
  EXPECT_EQ(errorOf([] {
              depthToSpace(iota({1, 4, 2, 2}), -2);
            }),
            "depthToSpace: blocksize -2 must be >= 1");
  EXPECT_EQ(errorOf([] {
              depthToSpace(iota({4, 2, 2}), 1);
            }),
            "depthToSpace: input must be 4-D NCHW, got [4, 2, 2]");
  EXPECT_EQ(errorOf([] {
              depthToSpace(makeFloatTensor({1, 0, 2, 2}), std::int64_t{1} << 62);
            }),
            "depthToSpace: dimension 2 times blocksize 4611686018427387904 overflows");
}

}  // namespace
}  // namespace npu::golden
