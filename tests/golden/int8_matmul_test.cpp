// int8 matmul of two activations: both layouts of b, zero points on both operands, batches,
// rounding, clip and the shape errors, on hand-computed values.
#include "npu/golden/int8_matmul.h"

#include <gtest/gtest.h>

#include "npu/support/error.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;
constexpr std::int32_t k2p30 = 1 << 30;
const QuantizedMultiplier kOne{k2p30, 1};   // 1.0
const QuantizedMultiplier kHalf{k2p30, 0};  // 0.5

TEST(Int8MatMul, BothLayoutsOfTheSecondOperandGiveTheProduct) {
  const Int8Tensor a{{1, 2, 2}, {1, 2, 3, 4}};
  MatMulInt8Params p;
  p.multiplier = kOne;
  // [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]].
  EXPECT_EQ(matMulInt8(a, {{1, 2, 2}, {5, 6, 7, 8}}, p).data, (Bytes{19, 22, 43, 50}));
  p.layoutB = MatMulLayout::NK;
  EXPECT_EQ(matMulInt8(a, {{1, 2, 2}, {5, 7, 6, 8}}, p).data, (Bytes{19, 22, 43, 50}));
}

TEST(Int8MatMul, SubtractsBothZeroPointsAndAddsTheOutputOne) {
  MatMulInt8Params p;
  p.multiplier = kOne;
  p.zeroPointA = 1;
  p.zeroPointB = -1;
  p.output.zeroPoint = 3;
  // (a - 1) = [[0, 1], [2, 3]], (b + 1) = [[6, 7], [8, 9]]: [[8, 9], [36, 41]], then + 3.
  const Int8Tensor y = matMulInt8({{2, 2}, {1, 2, 3, 4}}, {{2, 2}, {5, 6, 7, 8}}, p);
  EXPECT_EQ(y.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(y.data, (Bytes{11, 12, 39, 44}));
}

TEST(Int8MatMul, EachBatchUsesItsOwnOperands) {
  MatMulInt8Params p;
  p.multiplier = kOne;
  // Head 0: [1 2] x [[1], [1]] = 3; head 1: [3 4] x [[2], [-1]] = 2. Shape [1, 2 heads, 1, 2].
  const Int8Tensor y = matMulInt8({{1, 2, 1, 2}, {1, 2, 3, 4}}, {{1, 2, 2, 1}, {1, 1, 2, -1}}, p);
  EXPECT_EQ(y.shape, (std::vector<std::int64_t>{1, 2, 1, 1}));
  EXPECT_EQ(y.data, (Bytes{3, 2}));
}

TEST(Int8MatMul, RequantRoundsThenClips) {
  MatMulInt8Params p;
  p.multiplier = kHalf;
  p.output.clipLo = -5;
  p.output.clipHi = 9;
  // Sums 19, -19, 3, 40: halves 9.5 -> 10 -> clip 9; -9.5 -> -9 -> clip -5; 1.5 -> 2; 20 -> 9.
  const Int8Tensor y = matMulInt8({{4, 1}, {19, -19, 3, 40}}, {{1, 1}, {1}}, p);
  EXPECT_EQ(y.data, (Bytes{9, -5, 2, 9}));
  // A quarter of -6 is the tie -1.5: single rounding gives -1, double rounding -2 (SRDHM gives
  // -3 exactly, RoundingDivideByPOT(-3, 1) rounds away from zero).
  p.multiplier = {k2p30, -1};
  p.output.clipLo = -128;
  EXPECT_EQ(matMulInt8({{1, 1}, {-6}}, {{1, 1}, {1}}, p).data, (Bytes{-1}));
  p.output.rounding = Rounding::Double;
  EXPECT_EQ(matMulInt8({{1, 1}, {-6}}, {{1, 1}, {1}}, p).data, (Bytes{-2}));
}

TEST(Int8MatMul, ExtremeOperandsSumExactly) {
  MatMulInt8Params p;
  p.multiplier = {k2p30, -15};  // 2^-16
  p.zeroPointA = 127;
  p.zeroPointB = -128;
  // 300 terms of (-128 - 127) * (127 + 128) = -65025: -19507500 * 2^-16 = -297.66 -> clip -128.
  const Int8Tensor a{{1, 300}, Bytes(300, -128)};
  const Int8Tensor b{{300, 1}, Bytes(300, 127)};
  EXPECT_EQ(matMulInt8(a, b, p).data, (Bytes{-128}));
  p.multiplier = {k2p30, -17};  // 2^-18: -74.41 -> -74
  EXPECT_EQ(matMulInt8(a, b, p).data, (Bytes{-74}));
}

TEST(Int8MatMul, RejectsMismatchedShapes) {
  MatMulInt8Params p;
  p.multiplier = kOne;
  EXPECT_THROW(matMulInt8({{2, 3}, Bytes(6)}, {{2, 2}, Bytes(4)}, p), Error);
  EXPECT_THROW(matMulInt8({{2, 1, 2}, Bytes(4)}, {{1, 2, 1}, Bytes(2)}, p), Error);
  EXPECT_THROW(matMulInt8({{2}, Bytes(2)}, {{2}, Bytes(2)}, p), Error);
  p.zeroPointB = 128;
  EXPECT_THROW(matMulInt8({{1, 1}, Bytes(1)}, {{1, 1}, Bytes(1)}, p), Error);
}

}  // namespace
}  // namespace npu::golden
