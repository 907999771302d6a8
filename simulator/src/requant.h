// The simulator's fixed-point requantization (docs/numerics.md), written for the datapath and
// independent of golden/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace npu::sim {

inline std::int32_t saturateInt32(std::int64_t value) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(
      value, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

/// Shifts outside [-31, 30] (possible only from a corrupted parameter record) are clamped, as a
/// 6-bit shifter in hardware would saturate them.
inline int clampShift(int shift) {
  return std::clamp(shift, -31, 30);
}

/// Single rounding: (acc * M + 2^(t-1)) >> t with t = 31 - shift, in 64 bits, saturated to int32.
inline std::int32_t requantSingle(std::int32_t acc, std::int32_t multiplier, int shift) {
  const int t = 31 - clampShift(shift);
  const std::int64_t product = static_cast<std::int64_t>(acc) * multiplier;
  return saturateInt32((product + (std::int64_t{1} << (t - 1))) >> t);
}

/// gemmlowp's SaturatingRoundingDoublingHighMul.
inline std::int32_t roundingDoublingHighMul(std::int32_t a, std::int32_t b) {
  if (a == std::numeric_limits<std::int32_t>::min() && b == a) {
    return std::numeric_limits<std::int32_t>::max();
  }
  const std::int64_t ab = static_cast<std::int64_t>(a) * b;
  const std::int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

/// gemmlowp's RoundingDivideByPOT: round half away from zero.
inline std::int32_t roundingDivideByPot(std::int32_t x, int exponent) {
  if (exponent == 0) {
    return x;
  }
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/// Double rounding (TFLite MultiplyByQuantizedMultiplier), the per-program compatibility flag.
inline std::int32_t requantDouble(std::int32_t acc, std::int32_t multiplier, int shift) {
  shift = clampShift(shift);
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const std::int32_t shifted =
      saturateInt32(static_cast<std::int64_t>(acc) * (std::int64_t{1} << left));
  return roundingDivideByPot(roundingDoublingHighMul(shifted, multiplier), right);
}

inline std::int32_t requant(std::int32_t acc, std::int32_t multiplier, int shift,
                            bool doubleRound) {
  return doubleRound ? requantDouble(acc, multiplier, shift)
                     : requantSingle(acc, multiplier, shift);
}

}  // namespace npu::sim
