// int8 row reductions along the last axis: max of the stored bytes; the sum with its zero point,
// requant, output stage and the shapes, on hand-computed values.
#include "npu/golden/int8_reduce.h"

#include <gtest/gtest.h>

#include "npu/support/error.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;
using Shape = std::vector<std::int64_t>;

TEST(Int8ReduceMax, TakesEachRowsLargestByte) {
  const Int8Tensor y = reduceMaxLastAxisInt8({{1, 2, 1, 3}, {-5, -2, -9, -128, -128, -128}});
  EXPECT_EQ(y.shape, (Shape{1, 2, 1, 1}));
  EXPECT_EQ(y.data, (Bytes{-2, -128}));
  EXPECT_EQ(reduceMaxLastAxisInt8({{2, 1}, {7, 127}}).data, (Bytes{7, 127}));
}

TEST(Int8ReduceSum, SubtractsTheZeroPointRequantizesAndFinishes) {
  ReduceSumInt8Params p;
  p.inputZeroPoint = 2;
  p.multiplier = {1 << 30, 0};  // 0.5
  p.output.zeroPoint = -10;
  // Rows (4, 6, 1) and (2, 2, 3): sums of x - 2 are 5 and 1; halves 2.5 -> 3 and 0.5 -> 1.
  const Int8Tensor y = reduceSumLastAxisInt8({{1, 2, 3}, {4, 6, 1, 2, 2, 3}}, p);
  EXPECT_EQ(y.shape, (Shape{1, 2, 1}));
  EXPECT_EQ(y.data, (Bytes{-7, -9}));
  p.output.rounding = Rounding::Double;
  p.output.clipHi = -8;
  EXPECT_EQ(reduceSumLastAxisInt8({{1, 2, 3}, {4, 6, 1, 2, 2, 3}}, p).data, (Bytes{-8, -9}));
}

TEST(Int8ReduceSum, LongRowsOfExtremesSumInInt32) {
  ReduceSumInt8Params p;
  p.inputZeroPoint = -128;
  p.multiplier = {1 << 30, -15};  // 2^-16
  // 1000 values of 127 - (-128) = 255: 255000 / 65536 = 3.89 -> 4.
  EXPECT_EQ(reduceSumLastAxisInt8({{1, 1000}, Bytes(1000, 127)}, p).data, (Bytes{4}));
}

TEST(Int8Reduce, RejectsBadInputs) {
  ReduceSumInt8Params p;
  EXPECT_THROW(reduceMaxLastAxisInt8({{2, 0}, {}}), Error);
  EXPECT_THROW(reduceMaxLastAxisInt8({{2, 2}, Bytes(3)}), Error);
  p.inputZeroPoint = 200;
  EXPECT_THROW(reduceSumLastAxisInt8({{1, 1}, Bytes(1)}, p), Error);
}

}  // namespace
}  // namespace npu::golden
