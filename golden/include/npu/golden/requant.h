// Fixed-point requantization: TFLite's QuantizeMultiplier, single rounding (the default) and
// gemmlowp double rounding. docs/numerics.md states every formula here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>

namespace npu::golden {

/// A real multiplier m ~= multiplier * 2^(shift - 31), multiplier in [2^30, 2^31 - 1] (or 0 for
/// m == 0) and shift in [-31, 30].
struct QuantizedMultiplier {
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;

  friend bool operator==(const QuantizedMultiplier&, const QuantizedMultiplier&) = default;
};

/// Which requant formula a program uses; one choice for all its requants.
enum class Rounding : std::uint8_t {
  Single,  ///< (acc * M + 2^(t-1)) >> t, t = 31 - shift (TFLite single rounding, TVM UPWARD)
  Double,  ///< gemmlowp: SaturatingRoundingDoublingHighMul then RoundingDivideByPOT
};

/// TFLite QuantizeMultiplier: frexp(m) = q * 2^shift with q in [0.5, 1); M = round(q * 2^31)
/// (half away from zero); M == 2^31 renormalises to 2^30 with shift + 1; shift < -31 flushes to
/// {0, 0}; shift > 30 saturates to {2^31 - 1, 30}. m == 0 gives {0, 0}. Throws Error for a
/// negative or non-finite m.
QuantizedMultiplier quantizeMultiplier(double realMultiplier);

/// Throws Error naming `what` unless multiplier is in [0, 2^31 - 1] and shift in [-31, 30].
void checkQuantizedMultiplier(const QuantizedMultiplier& m, std::string_view what);

/// Saturates a 64-bit value to int32.
inline std::int32_t saturateToInt32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(
      v, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
}

/// gemmlowp SaturatingRoundingDoublingHighMul: a*b / 2^31 rounded to nearest as
/// trunc((a*b + nudge) / 2^31), nudge = 2^30 for a*b >= 0 and 1 - 2^30 otherwise, so ties round
/// toward +infinity; the one overflowing case a == b == INT32_MIN gives INT32_MAX.
inline std::int32_t saturatingRoundingDoublingHighMul(std::int32_t a, std::int32_t b) {
  if (a == b && a == std::numeric_limits<std::int32_t>::min()) {
    return std::numeric_limits<std::int32_t>::max();
  }
  const std::int64_t ab = static_cast<std::int64_t>(a) * b;
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
  // C++ division truncates toward zero, as gemmlowp relies on.
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

/// gemmlowp RoundingDivideByPOT: x / 2^exponent rounded to nearest, ties away from zero;
/// exponent in [0, 31].
inline std::int32_t roundingDivideByPOT(std::int32_t x, int exponent) {
  const std::int64_t mask = (std::int64_t{1} << exponent) - 1;
  const std::int64_t remainder = x & mask;
  const std::int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<std::int32_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

/// Single rounding: y = (acc * M + 2^(t-1)) >> t with t = 31 - shift, in int64 with an
/// arithmetic shift (halves round toward +infinity), saturated to int32. Preconditions as
/// checkQuantizedMultiplier.
inline std::int32_t requantizeSingle(std::int32_t acc, QuantizedMultiplier m) {
  const int t = 31 - m.shift;
  const std::int64_t product = static_cast<std::int64_t>(acc) * m.multiplier;
  return saturateToInt32((product + (std::int64_t{1} << (t - 1))) >> t);
}

/// Double rounding (TFLite MultiplyByQuantizedMultiplier): left = max(shift, 0),
/// right = max(-shift, 0); RoundingDivideByPOT(SRDHM(sat32(acc * 2^left), M), right).
inline std::int32_t requantizeDouble(std::int32_t acc, QuantizedMultiplier m) {
  const int left = m.shift > 0 ? m.shift : 0;
  const int right = m.shift > 0 ? 0 : -m.shift;
  const std::int32_t shifted = saturateToInt32(static_cast<std::int64_t>(acc) << left);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, m.multiplier), right);
}

/// The requant of docs/numerics.md in the chosen rounding mode.
inline std::int32_t requantize(std::int32_t acc, QuantizedMultiplier m, Rounding rounding) {
  return rounding == Rounding::Single ? requantizeSingle(acc, m) : requantizeDouble(acc, m);
}

}  // namespace npu::golden
