// int8 add, sub and mul: TFLite multipliers, the left-shift-20 rescale, tie rounding in both modes,
// saturation, clip, LUT and broadcasting.
#include "npu/golden/int8_elementwise.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

constexpr std::int32_t k2p30 = 1 << 30;
using Bytes = std::vector<std::int8_t>;

TEST(Int8Add, TfliteMultipliers) {
  const AddInt8Params p = makeAddParams({0.5F, 1}, {0.25F, -3}, {1.0F, 7});
  EXPECT_EQ(p.zeroPointA, 1);
  EXPECT_EQ(p.zeroPointB, -3);
  EXPECT_EQ(p.leftShift, 20);
  EXPECT_EQ(p.multiplierA, (QuantizedMultiplier{k2p30, 0}));      // 0.5 / (2 * 0.5)
  EXPECT_EQ(p.multiplierB, (QuantizedMultiplier{k2p30, -1}));     // 0.25 / (2 * 0.5)
  EXPECT_EQ(p.multiplierOut, (QuantizedMultiplier{k2p30, -19}));  // 1 / (2^20 * 1)
  EXPECT_EQ(p.output.zeroPoint, 7);
}

TEST(Int8Add, RescalesEachInputThenTheSum) {
  AddInt8Params p = makeAddParams({0.5F, 0}, {0.25F, 0}, {1.0F, 0});
  // 10 * 0.5 + 20 * 0.25 = 10; 3 * 0.5 = 1.5 rounds up; -3 * 0.5 = -1.5 rounds up in single mode.
  const Int8Tensor a{{3}, {10, 3, -3}};
  const Int8Tensor b{{3}, {20, 0, 0}};
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{10, 2, -1}));
  p.output.rounding = Rounding::Double;  // the last requant rounds -1.5 away from zero
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{10, 2, -2}));
}

TEST(Int8Add, TheInputRescalesUseTheProgramsRoundingMode) {
  // Left shift 0, M_a = M_b = 0.25 = (2^30, -1), M_out = 1 = (2^30, 1): the output is a2 + b2,
  // so only the input rescales can round. -6 * 0.25 = -1.5 is a tie: single rounding gives -1,
  // double rounding -2 (SRDHM gives -3 exactly, RoundingDivideByPOT(-3, 1) rounds away from
  // zero). 5 * 0.25 = 1.25 gives 1, and 2 with double rounding (SRDHM 2.5 -> 3, then 1.5 -> 2).
  AddInt8Params p;
  p.leftShift = 0;
  p.multiplierA = p.multiplierB = {k2p30, -1};
  p.multiplierOut = {k2p30, 1};
  const Int8Tensor a{{4}, {-6, 5, 0, 0}};
  const Int8Tensor b{{4}, {0, 0, -6, 5}};
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{-1, 1, -1, 1}));
  p.output.rounding = Rounding::Double;
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{-2, 2, -2, 2}));
}

TEST(Int8Add, MultipliersAreComputedInDouble) {
  // The float scales 0.3, 0.7 and 0.11 are widened to double before dividing. In float the
  // quotients keep 24 bits and would give M_a = 1840700416 and M_out = 1708225664.
  const AddInt8Params p = makeAddParams({0.3F, 0}, {0.7F, 0}, {0.11F, 0});
  EXPECT_EQ(p.multiplierA, (QuantizedMultiplier{1840700374, -2}));     // 0.3 / 1.4
  EXPECT_EQ(p.multiplierB, (QuantizedMultiplier{k2p30, 0}));           // 0.7 / 1.4 = 0.5
  EXPECT_EQ(p.multiplierOut, (QuantizedMultiplier{1708225609, -16}));  // 1.4 / (2^20 * 0.11)
}

TEST(Int8Add, SaturatesClipsAndLooksUp) {
  AddInt8Params p = makeAddParams({1.0F, -128}, {1.0F, 127}, {0.5F, 0});
  const Int8Tensor a{{2}, {127, -128}};
  const Int8Tensor b{{2}, {127, -128}};
  // (255 + 0) * 2 and (0 - 255) * 2: both saturate.
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{127, -128}));
  p.output.clipLo = -5;
  p.output.clipHi = 6;
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{6, -5}));
  Lut lut{};
  for (int i = 0; i < 256; ++i) {
    lut[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i - 128) / 2);
  }
  p.output.lut = lut;
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{3, -2}));
}

TEST(Int8Add, TheSumOfTheRescaledInputsSaturates) {
  AddInt8Params p;
  p.multiplierA = {1 << 30, 12};  // 2^11: 255 * 2^20 * 2^11 saturates to INT32_MAX
  p.multiplierB = {1 << 30, 12};
  p.multiplierOut = {1 << 30, -23};  // 2^-24
  const Int8Tensor a{{1}, {127}};
  const Int8Tensor b{{1}, {127}};
  p.zeroPointA = p.zeroPointB = -128;
  // INT32_MAX + INT32_MAX saturates (a wrapping sum would be -2 and give 0).
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{127}));
}

TEST(Int8Add, BroadcastsAndChecks) {
  const AddInt8Params p = makeAddParams({1.0F, 0}, {1.0F, 0}, {1.0F, 0});
  const Int8Tensor a{{1, 2, 1, 2}, {1, 2, 3, 4}};
  const Int8Tensor b{{1, 1, 1, 2}, {10, 20}};  // per-channel NHWC
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{11, 22, 13, 24}));
  AddInt8Params bad = p;
  bad.leftShift = 24;
  EXPECT_EQ(testing::errorOf([&] { addInt8(a, b, bad); }),
            "addInt8: left shift 24 is outside [0, 23]");
  EXPECT_EQ(testing::errorOf([&] {
              addInt8(a, Int8Tensor{{3}, {1, 2, 3}}, p);
            }),
            "addInt8: shapes [1, 2, 1, 2] and [3] do not broadcast");
}

TEST(Int8Sub, RescalesEachInputThenTheDifference) {
  // The add's multipliers: a2 = a * 2^19, b2 = b * 2^18, y = (a2 - b2) / 2^20.
  AddInt8Params p = makeAddParams({0.5F, 0}, {0.25F, 0}, {1.0F, 0});
  // 10 * 0.5 - 20 * 0.25 = 0; 3 * 0.5 = 1.5 rounds up; -3 * 0.5 = -1.5 and 0 - 6 * 0.25 = -1.5
  // round up in single mode, away from zero in double mode.
  const Int8Tensor a{{4}, {10, 3, -3, 0}};
  const Int8Tensor b{{4}, {20, 0, 0, 6}};
  EXPECT_EQ(subInt8(a, b, p).data, (Bytes{0, 2, -1, -1}));
  p.output.rounding = Rounding::Double;
  EXPECT_EQ(subInt8(a, b, p).data, (Bytes{0, 2, -2, -2}));
}

TEST(Int8Sub, IsNotAnAddOfTheSameOperands) {
  // Swapping the operands negates the result; an add of them would not.
  const AddInt8Params p = makeAddParams({1.0F, 0}, {1.0F, 0}, {1.0F, 0});
  const Int8Tensor a{{2}, {7, -20}};
  const Int8Tensor b{{2}, {3, 5}};
  EXPECT_EQ(subInt8(a, b, p).data, (Bytes{4, -25}));
  EXPECT_EQ(subInt8(b, a, p).data, (Bytes{-4, 25}));
  EXPECT_EQ(addInt8(a, b, p).data, (Bytes{10, -15}));
}

TEST(Int8Sub, SaturatesAtBothEnds) {
  // (255 - (-255)) / 0.5 and (-255 - 255) / 0.5 leave int8 on either side.
  const AddInt8Params up = makeAddParams({1.0F, -128}, {1.0F, 127}, {0.5F, 0});
  EXPECT_EQ(subInt8(Int8Tensor{{2}, {127, -128}}, Int8Tensor{{2}, {-128, 127}}, up).data,
            (Bytes{127, 0}));
  const AddInt8Params down = makeAddParams({1.0F, 127}, {1.0F, -128}, {0.5F, 0});
  EXPECT_EQ(subInt8(Int8Tensor{{1}, {-128}}, Int8Tensor{{1}, {127}}, down).data, (Bytes{-128}));
}

TEST(Int8Mul, SubtractsZeroPointsMultipliesAndRequantizes) {
  const MulInt8Params p = makeMulParams({0.5F, 2}, {0.5F, -1}, {1.0F, 3});
  EXPECT_EQ(p.multiplierOut, (QuantizedMultiplier{k2p30, -1}));  // 0.25
  // (10 - 2) * (-5 + 1) = -32 -> -8 + 3; (4 - 2) * (2 + 1) = 6 -> 1.5 rounds up -> 2 + 3.
  EXPECT_EQ(mulInt8(Int8Tensor{{2}, {10, 4}}, Int8Tensor{{2}, {-5, 2}}, p).data, (Bytes{-5, 5}));
  // Extremes: (-128 - 127) * (-128 - 127) = 65025 saturates the output.
  const MulInt8Params big = makeMulParams({1.0F, 127}, {1.0F, 127}, {1.0F, 0});
  EXPECT_EQ(mulInt8(Int8Tensor{{1}, {-128}}, Int8Tensor{{1}, {-128}}, big).data, (Bytes{127}));
  // Squeeze-excitation style broadcast: [1, 1, 1, C] times [1, H, W, C].
  const MulInt8Params unit = makeMulParams({1.0F, 0}, {1.0F, 0}, {1.0F, 0});
  EXPECT_EQ(
      mulInt8(Int8Tensor{{1, 1, 1, 2}, {2, 3}}, Int8Tensor{{1, 1, 2, 2}, {1, 2, 3, 4}}, unit).data,
      (Bytes{2, 6, 6, 12}));
}

TEST(Int8Mul, MultiplierIsComputedInDouble) {
  // 0.3 * 0.7 / 0.11 from the float scales, in double; in float it would be 2049870848.
  const MulInt8Params p = makeMulParams({0.3F, 0}, {0.7F, 0}, {0.11F, 0});
  EXPECT_EQ(p.multiplierOut, (QuantizedMultiplier{2049870813, 1}));
}

}  // namespace
}  // namespace npu::golden
