// int8 byte moves: channel concat and slice, nearest upsample, zero-point padding, reshape,
// transpose.
#include "npu/golden/int8_data_movement.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;
using Shape = std::vector<std::int64_t>;

TEST(Int8DataMovement, ChannelConcat) {
  const Int8Tensor a{{1, 1, 2, 2}, {1, 2, 3, 4}};
  const Int8Tensor b{{1, 1, 2, 1}, {-1, -2}};
  const Int8Tensor y = concatInt8({a, b}, 3);
  EXPECT_EQ(y.shape, (Shape{1, 1, 2, 3}));
  EXPECT_EQ(y.data, (Bytes{1, 2, -1, 3, 4, -2}));
}

TEST(Int8DataMovement, ChannelSlice) {
  // Two pixels of three channels; channels 1..2 of each.
  const Int8Tensor x{{1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}};
  const Int8Tensor y = sliceInt8(x, 3, 1, 2);
  EXPECT_EQ(y.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(y.data, (Bytes{2, 3, 5, 6}));
  EXPECT_EQ(sliceInt8(x, -2, 1, 1).data, (Bytes{4, 5, 6}));
  EXPECT_EQ(testing::errorOf([&] { sliceInt8(x, 3, 2, 2); }),
            "sliceInt8: 2 entries from 2 every 1 leave axis 3 of size 3");
}

TEST(Int8DataMovement, StridedSpatialSlice) {
  // A 3x4 single-channel map; rows 1, 3 would leave it, rows 0, 2 and columns 1, 3 (Focus).
  const Int8Tensor x{{1, 3, 4, 1}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23}};
  const Int8Tensor rows = sliceInt8(x, 1, 0, 2, 2);
  EXPECT_EQ(rows.data, (Bytes{0, 1, 2, 3, 20, 21, 22, 23}));
  const Int8Tensor y = sliceInt8(rows, 2, 1, 2, 2);
  EXPECT_EQ(y.shape, (Shape{1, 2, 2, 1}));
  EXPECT_EQ(y.data, (Bytes{1, 3, 21, 23}));
  EXPECT_EQ(testing::errorOf([&] { sliceInt8(x, 1, 1, 2, 2); }),
            "sliceInt8: 2 entries from 1 every 2 leave axis 1 of size 3");
}

TEST(Int8DataMovement, ChannelShuffle) {
  // One pixel of six channels in three groups of two: [a0 a1 | b0 b1 | c0 c1] -> a0 b0 c0 a1 b1 c1.
  const Int8Tensor x{{1, 1, 1, 6}, {10, 11, 20, 21, 30, 31}};
  EXPECT_EQ(shuffleChannelsInt8(x, 3).data, (Bytes{10, 20, 30, 11, 21, 31}));
  EXPECT_EQ(shuffleChannelsInt8(x, 2).data, (Bytes{10, 21, 11, 30, 20, 31}));
  EXPECT_EQ(testing::errorOf([&] { shuffleChannelsInt8(x, 4); }),
            "shuffleChannelsInt8: needs NHWC input with channels divisible by 4, got [1, 1, 1, 6]");
}

TEST(Int8DataMovement, NearestUpsample) {
  const Int8Tensor x{{1, 2, 1, 2}, {1, 2, 3, 4}};
  const Int8Tensor y = upsampleNearestInt8(x, 2, 2);
  EXPECT_EQ(y.shape, (Shape{1, 4, 2, 2}));
  EXPECT_EQ(y.data, (Bytes{1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4}));
  ResizeParams p;
  p.scales = {1.0F, 1.5F, 1.0F, 1.0F};
  p.coordinateTransform = CoordinateTransform::Asymmetric;
  p.nearestMode = NearestMode::Floor;
  EXPECT_EQ(resizeNearestInt8(x, p).data, (Bytes{1, 2, 1, 2, 3, 4}));
}

TEST(Int8DataMovement, PadWithTheZeroPoint) {
  const Int8Tensor x{{1, 1, 2, 1}, {7, 8}};
  const std::vector<std::int64_t> pads{0, 1, 0, 0, 0, 0, 1, 0};  // top 1, right 1
  const Int8Tensor y = padInt8(x, pads, -3);
  EXPECT_EQ(y.shape, (Shape{1, 2, 3, 1}));
  EXPECT_EQ(y.data, (Bytes{-3, -3, -3, 7, 8, -3}));
}

TEST(Int8DataMovement, ReshapeAndTranspose) {
  const Int8Tensor x{{1, 2, 2, 1}, {1, 2, 3, 4}};
  EXPECT_EQ(reshapeInt8(x, Shape{1, -1}).shape, (Shape{1, 4}));
  const Int8Tensor nchw{{1, 2, 1, 2}, {1, 2, 3, 4}};
  const Int8Tensor nhwc = transposeInt8(nchw, Shape{0, 2, 3, 1});
  EXPECT_EQ(nhwc.shape, (Shape{1, 1, 2, 2}));
  EXPECT_EQ(nhwc.data, (Bytes{1, 3, 2, 4}));
  EXPECT_EQ(testing::errorOf([&] { reshapeInt8(x, Shape{3}); }),
            "reshape: input [1, 2, 2, 1] has 4 elements, target [3] has 3");
}

}  // namespace
}  // namespace npu::golden
