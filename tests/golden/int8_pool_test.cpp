// int8 pools: -128 padding for max, zero-point padding counted in the average, the fixed-point
// reciprocal and its rounding, global average.
#include "npu/golden/int8_pool.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;

PoolInt8Params window(std::int64_t kh, std::int64_t kw, std::int64_t s, std::int64_t pad) {
  PoolInt8Params p;
  p.kernel = {kh, kw};
  p.strides = {s, s};
  p.pads = {pad, pad, pad, pad};
  return p;
}

TEST(Int8MaxPool, PaddingNeverWinsUnlessTheWindowIsAllPadding) {
  const Int8Tensor x{{1, 2, 2, 1}, {-100, -50, -120, -127}};
  EXPECT_EQ(maxPoolInt8(x, window(2, 2, 1, 1)).data,
            (Bytes{-100, -50, -50, -100, -50, -50, -120, -120, -127}));
  // A 1x1 window on the padding ring sees only padding: -128.
  EXPECT_EQ(maxPoolInt8(x, window(1, 1, 2, 1)).data, (Bytes{-128, -128, -128, -127}));
  const Int8Tensor two{{1, 1, 2, 2}, {5, -7, 3, 9}};  // channels pool independently
  EXPECT_EQ(maxPoolInt8(two, window(1, 2, 1, 0)).data, (Bytes{5, 9}));
}

TEST(Int8AveragePool, CountsPaddingAsTheZeroPoint) {
  const Int8Tensor x{{1, 2, 2, 1}, {1, 2, 3, 5}};
  // Window sums with padding = 4: 13 11 14 / 12 11 15 / 15 16 17, divided by 4, halves up.
  EXPECT_EQ(averagePoolInt8(x, window(2, 2, 1, 1), 4).data, (Bytes{3, 3, 4, 3, 3, 4, 4, 4, 4}));
  EXPECT_EQ(averagePoolMultiplier(2, 2), (QuantizedMultiplier{1 << 30, -1}));
  EXPECT_EQ(averagePoolMultiplier(1, 1), (QuantizedMultiplier{1 << 30, 1}));
}

TEST(Int8AveragePool, RoundsHalfUpAndStaysInRange) {
  EXPECT_EQ(averagePoolInt8(Int8Tensor{{1, 1, 2, 1}, {-3, -2}}, window(1, 2, 1, 0), 0).data,
            (Bytes{-2}));  // -2.5
  EXPECT_EQ(averagePoolInt8(Int8Tensor{{1, 1, 2, 1}, {3, 2}}, window(1, 2, 1, 0), 0).data,
            (Bytes{3}));  // 2.5
  EXPECT_EQ(averagePoolInt8(Int8Tensor{{1, 1, 2, 1}, {-128, -128}}, window(1, 2, 1, 0), -128).data,
            (Bytes{-128}));
  // 1/9 is not exact in Q31; nine 127s still average to 127, nine -128s to -128.
  const Int8Tensor high = makeInt8Tensor({1, 3, 3, 1}, 127);
  const Int8Tensor low = makeInt8Tensor({1, 3, 3, 1}, -128);
  EXPECT_EQ(globalAveragePoolInt8(high).data, (Bytes{127}));
  EXPECT_EQ(globalAveragePoolInt8(low).data, (Bytes{-128}));
}

TEST(Int8GlobalAveragePool, AveragesEachChannelOfThePlane) {
  const Int8Tensor x{{1, 2, 2, 2}, {1, -1, 2, -2, 3, -3, 5, -5}};
  const Int8Tensor y = globalAveragePoolInt8(x);
  EXPECT_EQ(y.shape, (std::vector<std::int64_t>{1, 1, 1, 2}));
  EXPECT_EQ(y.data, (Bytes{3, -3}));  // 2.75 and -2.75
  EXPECT_EQ(testing::errorOf([] {
              globalAveragePoolInt8(makeInt8Tensor({2, 2}));
            }),
            "globalAveragePoolInt8: input must be 4-D NHWC, got [2, 2]");
}

}  // namespace
}  // namespace npu::golden
