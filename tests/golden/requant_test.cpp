// QuantizeMultiplier and both requant formulas on hand-worked values, including every extreme of
// docs/numerics.md: renormalisation, tiny-value flush, shift saturation, INT32_MIN x INT32_MIN,
// shifts at both ends, zero multiplier, tie rounding in each mode.
#include "npu/golden/requant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t k2p30 = 1 << 30;

using Qm = QuantizedMultiplier;

TEST(QuantizeMultiplier, SplitsIntoQ31AndShift) {
  EXPECT_EQ(quantizeMultiplier(0.0), (Qm{0, 0}));
  EXPECT_EQ(quantizeMultiplier(0.5), (Qm{k2p30, 0}));
  EXPECT_EQ(quantizeMultiplier(1.0), (Qm{k2p30, 1}));
  EXPECT_EQ(quantizeMultiplier(0.75), (Qm{1610612736, 0}));
  // 2/3 * 2^31 = 1431655765.33 rounds down; 1/3 = 2/3 * 2^-1.
  EXPECT_EQ(quantizeMultiplier(1.0 / 3.0), (Qm{1431655765, -1}));
  // 0.9 * 2^31 = 1932735283.2 rounds down, 0.7 * 2^31 = 1503238553.6 up.
  EXPECT_EQ(quantizeMultiplier(0.9), (Qm{1932735283, 0}));
  EXPECT_EQ(quantizeMultiplier(0.7), (Qm{1503238554, 0}));
}

TEST(QuantizeMultiplier, RoundsTheMantissaHalfAwayFromZero) {
  // m = 0.5 + 2^-32: q * 2^31 = 2^30 + 0.5 exactly, a tie. Half away from zero gives 2^30 + 1;
  // half to even (nearbyint, rint) would give 2^30.
  EXPECT_EQ(quantizeMultiplier(0.5 + std::ldexp(1.0, -32)), (Qm{k2p30 + 1, 0}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(0.5 + std::ldexp(1.0, -32), -10)), (Qm{k2p30 + 1, -10}));
  // 2^30 + 1.5 rounds to 2^30 + 2 under both rules.
  EXPECT_EQ(quantizeMultiplier(0.5 + 3 * std::ldexp(1.0, -32)), (Qm{k2p30 + 2, 0}));
}

TEST(QuantizeMultiplier, RenormalisesWhenTheMantissaRoundsUpToOne) {
  // q = 1 - 2^-33 rounds to 2^31, which becomes 2^30 with the shift raised by one.
  EXPECT_EQ(quantizeMultiplier(1.0 - std::ldexp(1.0, -33)), (Qm{k2p30, 1}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0 - std::ldexp(1.0, -33), -5)), (Qm{k2p30, -4}));
  // Renormalisation happens before the flush: this one lands exactly on shift -31 and is kept.
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0 - std::ldexp(1.0, -40), -32)), (Qm{k2p30, -31}));
}

TEST(QuantizeMultiplier, FlushesTinyValuesAndSaturatesHugeOnes) {
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, -32)), (Qm{k2p30, -31}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, -33)), (Qm{0, 0}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(0.75, -32)), (Qm{0, 0}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, 29)), (Qm{k2p30, 30}));
  EXPECT_EQ(quantizeMultiplier(std::ldexp(1.0, 30)), (Qm{kMax, 30}));
  EXPECT_EQ(quantizeMultiplier(1e30), (Qm{kMax, 30}));
}

TEST(QuantizeMultiplier, RejectsNegativeAndNonFinite) {
  EXPECT_EQ(testing::errorOf([] { quantizeMultiplier(-0.5); }),
            "quantizeMultiplier: multiplier -0.5 must be finite and non-negative");
  EXPECT_EQ(testing::errorOf([] { quantizeMultiplier(std::nan("")); }),
            "quantizeMultiplier: multiplier nan must be finite and non-negative");
  EXPECT_EQ(testing::errorOf([] {
              checkQuantizedMultiplier({1, 31}, "conv");
            }),
            "conv: quantized multiplier 1 with shift 31 is out of range (multiplier >= 0, shift "
            "in [-31, 30])");
}

TEST(RequantSingle, RoundsHalfTowardPlusInfinity) {
  const Qm half{k2p30, 0};                    // 0.5
  EXPECT_EQ(requantizeSingle(3, half), 2);    // 1.5
  EXPECT_EQ(requantizeSingle(5, half), 3);    // 2.5
  EXPECT_EQ(requantizeSingle(-3, half), -1);  // -1.5
  EXPECT_EQ(requantizeSingle(-5, half), -2);  // -2.5
  EXPECT_EQ(requantizeSingle(-4, half), -2);
  const Qm quarter{k2p30, -1};                   // 0.25
  EXPECT_EQ(requantizeSingle(5, quarter), 1);    // 1.25
  EXPECT_EQ(requantizeSingle(-2, quarter), 0);   // -0.5
  EXPECT_EQ(requantizeSingle(-5, quarter), -1);  // -1.25
  EXPECT_EQ(requantizeSingle(-7, quarter), -2);  // -1.75
}

TEST(RequantSingle, ShiftsAtBothEndsAndSaturation) {
  // shift 30: t = 1.
  EXPECT_EQ(requantizeSingle(1, {kMax, 30}), k2p30);
  EXPECT_EQ(requantizeSingle(kMax, {kMax, 30}), kMax);
  EXPECT_EQ(requantizeSingle(kMin, {kMax, 30}), kMin);
  // shift -31: t = 62, the largest products still fit in int64.
  EXPECT_EQ(requantizeSingle(kMin, {kMax, -31}), -1);
  EXPECT_EQ(requantizeSingle(kMax, {kMax, -31}), 1);
  EXPECT_EQ(requantizeSingle(kMax, {k2p30, -31}), 0);
  // 2^30 * 2 = 2^31 does not fit: saturates.
  EXPECT_EQ(requantizeSingle(k2p30, {k2p30, 2}), kMax);
  EXPECT_EQ(requantizeSingle(-k2p30 - 1, {k2p30, 2}), kMin);
}

TEST(RequantSingle, ZeroMultiplierGivesZero) {
  for (std::int32_t acc : {kMin, -1, 0, 1, kMax}) {
    EXPECT_EQ(requantizeSingle(acc, {0, 0}), 0);
    EXPECT_EQ(requantizeSingle(acc, {0, -31}), 0);
    EXPECT_EQ(requantizeSingle(acc, {0, 30}), 0);
    EXPECT_EQ(requantizeDouble(acc, {0, 0}), 0);
  }
}

TEST(GemmlowpPrimitives, SaturatingRoundingDoublingHighMul) {
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMin), kMax);  // the one overflow
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMax), -kMax);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(3, k2p30), 2);         // 1.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(5, k2p30), 3);         // 2.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-3, k2p30), -1);       // -1.5: the nudge rounds up
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-5, k2p30), -2);       // -2.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-7, k2p30), -3);       // -3.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-6, 1288490189), -4);  // -3.6
}

TEST(GemmlowpPrimitives, RoundingDivideByPOT) {
  EXPECT_EQ(roundingDivideByPOT(3, 1), 2);    // 1.5
  EXPECT_EQ(roundingDivideByPOT(-3, 1), -2);  // -1.5: away from zero
  EXPECT_EQ(roundingDivideByPOT(-5, 2), -1);  // -1.25
  EXPECT_EQ(roundingDivideByPOT(-6, 2), -2);  // -1.5
  EXPECT_EQ(roundingDivideByPOT(7, 0), 7);
  EXPECT_EQ(roundingDivideByPOT(kMax, 31), 1);
  EXPECT_EQ(roundingDivideByPOT(kMin, 31), -1);
  EXPECT_EQ(roundingDivideByPOT(k2p30 - 1, 31), 0);
}

TEST(RequantDouble, RoundsTwiceAndSaturatesTheLeftShift) {
  const Qm quarter{k2p30, -1};
  EXPECT_EQ(requantizeDouble(5, quarter), 2);    // SRDHM 2.5 -> 3, then 1.5 -> 2
  EXPECT_EQ(requantizeSingle(5, quarter), 1);    // single rounding of 1.25
  EXPECT_EQ(requantizeDouble(-2, quarter), -1);  // -0.5 -> away from zero
  EXPECT_EQ(requantizeDouble(-5, {k2p30, 0}), -2);
  // Left shift of 2^30 by 2 saturates to INT32_MAX before the multiply.
  EXPECT_EQ(requantizeDouble(k2p30, {k2p30, 2}), k2p30);
  EXPECT_EQ(requantizeDouble(kMin, {k2p30, 30}), -k2p30);
  EXPECT_EQ(requantizeDouble(kMax, {kMax, -31}), 1);
  EXPECT_EQ(requantizeDouble(kMin, {kMax, -31}), -1);
}

TEST(Requant, DispatchesOnTheRoundingMode) {
  EXPECT_EQ(requantize(5, {k2p30, -1}, Rounding::Single), 1);
  EXPECT_EQ(requantize(5, {k2p30, -1}, Rounding::Double), 2);
}

}  // namespace
}  // namespace npu::golden
