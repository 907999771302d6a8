// fp32 pools: output sizes (ceil mode), padding, count_include_pad, global pools.
#include "npu/golden/fp32_pool.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

Pool2dParams window(std::int64_t k, std::int64_t s) {
  Pool2dParams p;
  p.kernel = {k, k};
  p.strides = {s, s};
  return p;
}

TEST(Fp32Pool, PooledSize) {
  EXPECT_EQ(pooledSize(5, 2, 2, 1, 0, 0, false), 2);
  EXPECT_EQ(pooledSize(5, 2, 2, 1, 0, 0, true), 3);
  // Ceil mode would start a third window entirely in the end padding: it is dropped.
  EXPECT_EQ(pooledSize(4, 2, 2, 1, 0, 1, true), 2);
  EXPECT_EQ(pooledSize(112, 3, 2, 1, 1, 1, false), 56);
  EXPECT_EQ(errorOf([] { pooledSize(2, 3, 1, 1, 0, 0, false); }),
            "pool: window 3 (dilated 3) does not fit input 2 with pads 0+0");
  EXPECT_EQ(errorOf([] { pooledSize(4, 2, 0, 1, 0, 0, false); }),
            "pool: kernel 2, stride 0, dilation 1 must be >= 1 and pads 0+0 >= 0");
}

TEST(Fp32MaxPool, WindowsAndPadding) {
  expectTensor(maxPool2d(iota({1, 1, 4, 4}), window(2, 2)), {1, 1, 2, 2}, {5, 7, 13, 15});
  Pool2dParams padded = window(3, 2);
  padded.pads = {1, 1, 1, 1};
  // Padding never wins, even against negative values.
  expectTensor(maxPool2d(iota({1, 1, 4, 4}, -100), padded), {1, 1, 2, 2}, {-95, -93, -87, -85});
  Pool2dParams ceil = window(2, 2);
  ceil.ceilMode = true;
  expectTensor(maxPool2d(iota({1, 1, 5, 5}), ceil), {1, 1, 3, 3},
               {6, 8, 9, 16, 18, 19, 21, 23, 24});
}

TEST(Fp32AveragePool, CountIncludePad) {
  const FloatTensor x{{1, 1, 2, 2}, {1, 2, 3, 4}};
  Pool2dParams p = window(2, 1);
  p.pads = {1, 1, 1, 1};
  expectTensor(averagePool2d(x, p), {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  p.countIncludePad = true;
  expectTensor(averagePool2d(x, p), {1, 1, 3, 3}, {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

TEST(Fp32AveragePool, CeilModeWindowsPastThePaddingDoNotCount) {
  Pool2dParams p = window(2, 2);
  p.ceilMode = true;
  const std::vector<float> expected{3, 5, 6.5, 13, 15, 16.5, 20.5, 22.5, 24};
  expectTensor(averagePool2d(iota({1, 1, 5, 5}), p), {1, 1, 3, 3}, expected);
  p.countIncludePad = true;
  expectTensor(averagePool2d(iota({1, 1, 5, 5}), p), {1, 1, 3, 3}, expected);
}

TEST(Fp32GlobalPool, AveragesAndMaxesEachPlane) {
  expectTensor(globalAveragePool(iota({1, 2, 2, 2})), {1, 2, 1, 1}, {1.5, 5.5});
  expectTensor(globalMaxPool(iota({2, 1, 3})), {2, 1, 1}, {2, 5});
  EXPECT_EQ(errorOf([] {
              globalAveragePool(iota({2, 2}));
            }),
            "globalAveragePool: input must have rank >= 3 (N, C, spatial...), got [2, 2]");
}

}  // namespace
}  // namespace npu::golden
