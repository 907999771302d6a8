// int8 softmax, LayerNorm and RMSNorm rows: plain loops over the formulas of docs/numerics.md, in
// exact integer arithmetic (the divisions and the square root are the hardware's, not
// approximations).
#include "npu/golden/int8_norm.h"

#include <algorithm>
#include <cmath>

#include "npu/golden/requant.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

constexpr std::int64_t kMaxRowLength = 4095;

std::pair<std::int64_t, std::int64_t> normRowsOf(const Int8Tensor& x, const char* op) {
  checkConsistent(x, op);
  if (x.rank() < 1 || x.shape.back() < 1 || x.shape.back() > kMaxRowLength) {
    fail("{}: the last axis must hold 1 to {} values", op, kMaxRowLength);
  }
  const std::int64_t length = x.shape.back();
  return {static_cast<std::int64_t>(x.data.size()) / length, length};
}

void checkInt8(std::int32_t value, const char* what, const char* op) {
  if (value < -128 || value > 127) {
    fail("{}: {} {} is outside [-128, 127]", op, what, value);
  }
}

void checkClip(std::int32_t lo, std::int32_t hi, const char* op) {
  checkInt8(lo, "clip_lo", op);
  checkInt8(hi, "clip_hi", op);
  if (lo > hi) {
    fail("{}: clip_lo {} is above clip_hi {}", op, lo, hi);
  }
}

std::int8_t clampToInt8(std::int64_t y, std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int8_t>(std::clamp<std::int64_t>(y, lo, hi));
}

/// floor(sqrt(w)) by the digit-by-digit method: exact for every 64-bit w.
std::uint64_t integerSqrt(std::uint64_t w) {
  std::uint64_t root = 0;
  std::uint64_t bit = std::uint64_t{1} << 62;
  while (bit > w) {
    bit >>= 2;
  }
  while (bit != 0) {
    if (w >= root + bit) {
      w -= root + bit;
      root = (root >> 1) + bit;
    } else {
      root >>= 1;
    }
    bit >>= 2;
  }
  return root;
}

}  // namespace

std::array<std::uint16_t, 256> softmaxExpTable(double inputScale) {
  if (!std::isfinite(inputScale) || inputScale <= 0) {
    fail("softmaxExpTable: input scale {} is not a positive number", inputScale);
  }
  std::array<std::uint16_t, 256> table{};
  for (std::size_t k = 0; k < table.size(); ++k) {
    const double value = std::ldexp(std::exp(-static_cast<double>(k) * inputScale), 15);
    table[k] = static_cast<std::uint16_t>(std::round(value));
  }
  return table;
}

Int8Tensor softmaxRowsInt8(const Int8Tensor& x, const SoftmaxInt8Params& p) {
  const char* op = "softmaxRowsInt8";
  const auto [rows, length] = normRowsOf(x, op);
  checkInt8(p.outputZeroPoint, "output zero point", op);
  checkClip(p.clipLo, p.clipHi, op);
  Int8Tensor y = makeInt8Tensor(x.shape);
  std::vector<std::uint64_t> e(static_cast<std::size_t>(length));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int8_t* row = x.data.data() + r * length;
    const std::int32_t m = *std::max_element(row, row + length);
    std::uint64_t sum = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      e[static_cast<std::size_t>(j)] = p.expTable[static_cast<std::size_t>(m - row[j])];
      sum += e[static_cast<std::size_t>(j)];
    }
    const std::uint64_t reciprocal = sum > 0 ? (std::uint64_t{1} << 39) / sum : 0;
    for (std::int64_t j = 0; j < length; ++j) {
      const std::uint64_t scaled =
          (e[static_cast<std::size_t>(j)] * reciprocal + (std::uint64_t{1} << 30)) >> 31;
      y.data[static_cast<std::size_t>(r * length + j)] =
          clampToInt8(static_cast<std::int64_t>(scaled) + p.outputZeroPoint, p.clipLo, p.clipHi);
    }
  }
  return y;
}

std::uint64_t layerNormEpsilonTerm(std::int64_t length, double epsilon, double inputScale) {
  if (!std::isfinite(epsilon) || epsilon < 0 || !std::isfinite(inputScale) || inputScale <= 0) {
    fail("layerNormEpsilonTerm: epsilon {} or input scale {} is out of range", epsilon, inputScale);
  }
  const double l = static_cast<double>(length);
  const double term = l * l * l * epsilon / (inputScale * inputScale);
  constexpr double kMax = 4611686018427387903.0;  // 2^62 - 1
  if (!(term < kMax)) {
    return (std::uint64_t{1} << 62) - 1;
  }
  return static_cast<std::uint64_t>(std::round(term));
}

LayerNormPosition layerNormPosition(double gamma, double beta, std::int64_t length,
                                    double outputScale) {
  if (!std::isfinite(gamma) || !std::isfinite(beta) || !std::isfinite(outputScale) ||
      outputScale <= 0) {
    fail("layerNormPosition: gamma {}, beta {} or output scale {} is out of range", gamma, beta,
         outputScale);
  }
  const QuantizedMultiplier m = quantizeMultiplier(
      std::abs(gamma) * std::sqrt(static_cast<double>(length)) / (outputScale * 16777216.0));
  const double bias = std::clamp(std::round(beta / outputScale), -2147483648.0, 2147483647.0);
  return {gamma < 0 ? -m.multiplier : m.multiplier, m.shift, static_cast<std::int32_t>(bias)};
}

namespace {

/// LayerNorm (centred) or RMSNorm (not centred) rows: d[j] = L * v[j], less the row sum of v
/// when centred; everything after d is the same formula.
Int8Tensor normalizedRowsInt8(const Int8Tensor& x, const LayerNormInt8Params& p, bool centred,
                              const char* op) {
  const auto [rows, length] = normRowsOf(x, op);
  checkInt8(p.inputZeroPoint, "input zero point", op);
  checkInt8(p.outputZeroPoint, "output zero point", op);
  checkClip(p.clipLo, p.clipHi, op);
  if (static_cast<std::int64_t>(p.positions.size()) != length) {
    fail("{}: {} position records for rows of {} values", op, p.positions.size(), length);
  }
  const std::uint64_t epsilonTerm = p.epsilonTerm & ((std::uint64_t{1} << 62) - 1);
  Int8Tensor y = makeInt8Tensor(x.shape);
  std::vector<std::int64_t> d(static_cast<std::size_t>(length));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int8_t* row = x.data.data() + r * length;
    std::int64_t sum = 0;
    if (centred) {
      for (std::int64_t j = 0; j < length; ++j) {
        sum += std::int64_t{row[j]} - p.inputZeroPoint;
      }
    }
    std::uint64_t squares = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      const std::int64_t dj = length * (std::int64_t{row[j]} - p.inputZeroPoint) - sum;
      d[static_cast<std::size_t>(j)] = dj;
      squares += static_cast<std::uint64_t>(dj * dj);
    }
    const std::uint64_t root = integerSqrt(squares + epsilonTerm);
    const auto reciprocal =
        static_cast<std::int64_t>(root > 0 ? (std::uint64_t{1} << 46) / root : 0);
    for (std::int64_t j = 0; j < length; ++j) {
      const std::int64_t t =
          (d[static_cast<std::size_t>(j)] * reciprocal + (std::int64_t{1} << 21)) >> 22;
      const LayerNormPosition& pos = p.positions[static_cast<std::size_t>(j)];
      const int k = 31 - std::clamp(pos.shift, -31, 30);
      const std::int64_t scaled = (t * pos.multiplier + (std::int64_t{1} << (k - 1))) >> k;
      y.data[static_cast<std::size_t>(r * length + j)] =
          clampToInt8(scaled + pos.bias + p.outputZeroPoint, p.clipLo, p.clipHi);
    }
  }
  return y;
}

}  // namespace

Int8Tensor layerNormRowsInt8(const Int8Tensor& x, const LayerNormInt8Params& p) {
  return normalizedRowsInt8(x, p, true, "layerNormRowsInt8");
}

Int8Tensor rmsNormRowsInt8(const Int8Tensor& x, const LayerNormInt8Params& p) {
  return normalizedRowsInt8(x, p, false, "rmsNormRowsInt8");
}

}  // namespace npu::golden
