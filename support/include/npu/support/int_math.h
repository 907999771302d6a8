// Small integer helpers every layer uses: rounding divisions and alignment.
#pragma once

#include <cstdint>

namespace npu {

/// a / b rounded up, for a >= 0 and b > 0.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace npu
