// QuantizeMultiplier with TFLite's semantics, and the range check of a quantized multiplier.
#include "npu/golden/requant.h"

#include <cmath>

#include "npu/support/error.h"

namespace npu::golden {

QuantizedMultiplier quantizeMultiplier(double realMultiplier) {
  if (!std::isfinite(realMultiplier) || realMultiplier < 0.0) {
    fail("quantizeMultiplier: multiplier {} must be finite and non-negative", realMultiplier);
  }
  if (realMultiplier == 0.0) {
    return {0, 0};
  }
  int shift = 0;
  const double q = std::frexp(realMultiplier, &shift);  // q in [0.5, 1)
  auto fixed = static_cast<std::int64_t>(std::round(q * static_cast<double>(1LL << 31)));
  if (fixed == (1LL << 31)) {  // q rounded up to 1.0: renormalise
    fixed /= 2;
    ++shift;
  }
  if (shift < -31) {  // every bit would be shifted out: flush to zero
    return {0, 0};
  }
  if (shift > 30) {  // beyond what single rounding can shift: saturate
    return {std::numeric_limits<std::int32_t>::max(), 30};
  }
  return {static_cast<std::int32_t>(fixed), shift};
}

void checkQuantizedMultiplier(const QuantizedMultiplier& m, std::string_view what) {
  if (m.multiplier < 0 || m.shift < -31 || m.shift > 30) {
    fail(
        "{}: quantized multiplier {} with shift {} is out of range (multiplier >= 0, shift in "
        "[-31, 30])",
        what, m.multiplier, m.shift);
  }
}

}  // namespace npu::golden
