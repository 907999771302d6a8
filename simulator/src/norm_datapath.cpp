// The vector unit's NORM: integer softmax, LayerNorm and RMSNorm of rows (docs/isa.md "NORM", the
// formulas of docs/numerics.md "Softmax and LayerNorm over rows", "RMSNorm over rows"), written for
// the datapath: three passes over each row as the hardware makes them, a restoring divider and a
// digit-by-digit square root.
#include <algorithm>
#include <cstring>
#include <vector>

#include "datapath_ops.h"

namespace npu::sim {
namespace {

using u64 = std::uint64_t;

/// Restoring division of `dividendBits`-bit 2^(dividendBits-1) by `divisor` (> 0), one quotient
/// bit per step as the RTL's divider produces them.
u64 powerOfTwoOver(unsigned exponent, u64 divisor) {
  u64 remainder = 0;
  u64 quotient = 0;
  for (int bit = static_cast<int>(exponent); bit >= 0; --bit) {
    remainder = (remainder << 1) | (bit == static_cast<int>(exponent) ? 1U : 0U);
    quotient <<= 1;
    if (remainder >= divisor) {
      remainder -= divisor;
      quotient |= 1;
    }
  }
  return quotient;
}

/// floor(sqrt(radicand)), two radicand bits per step.
u64 squareRootFloor(u64 radicand) {
  u64 root = 0;
  u64 rest = 0;
  for (int pair = 31; pair >= 0; --pair) {
    rest = (rest << 2) | ((radicand >> (2 * pair)) & 3U);
    const u64 trial = (root << 2) | 1U;
    root <<= 1;
    if (rest >= trial) {
      rest -= trial;
      root |= 1;
    }
  }
  return root;
}

std::int8_t outputByte(std::int64_t value, const isa::Norm& n) {
  return static_cast<std::int8_t>(std::clamp<std::int64_t>(value + n.out_zp, n.clip_lo, n.clip_hi));
}

std::uint16_t expEntry(const std::vector<std::uint8_t>& parameter, std::int64_t base, int k) {
  const std::size_t at = static_cast<std::size_t>(base + 2 * k);
  return static_cast<std::uint16_t>(parameter[at] | (parameter[at + 1] << 8));
}

void softmaxRow(const isa::Norm& n, const std::int8_t* in, std::int8_t* out,
                const std::vector<std::uint8_t>& parameter) {
  const std::int64_t length = n.length;
  std::int32_t rowMax = -128;
  for (std::int64_t j = 0; j < length; ++j) {
    rowMax = std::max<std::int32_t>(rowMax, in[j]);
  }
  u64 expSum = 0;
  for (std::int64_t j = 0; j < length; ++j) {
    expSum += expEntry(parameter, n.param_addr, rowMax - in[j]);
  }
  const u64 reciprocal = expSum == 0 ? 0 : powerOfTwoOver(39, expSum);
  for (std::int64_t j = 0; j < length; ++j) {
    const u64 e = expEntry(parameter, n.param_addr, rowMax - in[j]);
    out[j] = outputByte(static_cast<std::int64_t>((e * reciprocal + (u64{1} << 30)) >> 31), n);
  }
}

/// LayerNorm (op 1) or RMSNorm (op 2, which leaves the row sum at 0) of one row.
void layerNormRow(const isa::Norm& n, const std::int8_t* in, std::int8_t* out,
                  const std::vector<std::uint8_t>& parameter) {
  const std::int64_t length = n.length;
  std::int64_t valueSum = 0;
  if (n.op == isa::kNormLayerNorm) {
    for (std::int64_t j = 0; j < length; ++j) {
      valueSum += in[j] - n.in_zp;
    }
  }
  auto deviation = [&](std::int64_t j) { return length * (in[j] - n.in_zp) - valueSum; };
  u64 squares = 0;
  for (std::int64_t j = 0; j < length; ++j) {
    const std::int64_t d = deviation(j);
    squares += static_cast<u64>(d * d);
  }
  u64 epsilonTerm = 0;
  std::memcpy(&epsilonTerm, parameter.data() + n.param_addr, 8);
  epsilonTerm &= (u64{1} << 62) - 1;
  const u64 root = squareRootFloor(squares + epsilonTerm);
  const auto reciprocal = static_cast<std::int64_t>(root == 0 ? 0 : powerOfTwoOver(46, root));
  for (std::int64_t j = 0; j < length; ++j) {
    const std::int64_t normalised = (deviation(j) * reciprocal + (std::int64_t{1} << 21)) >> 22;
    const std::int64_t record = n.param_addr + 8 + (n.one_record != 0 ? 0 : 12 * j);
    const std::int32_t multiplier = readParam(parameter, record);
    const int shift = std::clamp(readParam(parameter, record + 4), -31, 30);
    const std::int32_t bias = readParam(parameter, record + 8);
    const int drop = 31 - shift;
    const std::int64_t scaled = (normalised * multiplier + (std::int64_t{1} << (drop - 1))) >> drop;
    out[j] = outputByte(scaled + bias, n);
  }
}

}  // namespace

void executeNorm(const isa::Norm& n, SramState& sram) {
  for (std::int64_t r = 0; r < n.rows; ++r) {
    const std::int8_t* in = sram.input.data() + n.in_addr + r * n.length;
    std::int8_t* out = sram.output.data() + n.out_addr + r * n.length;
    if (n.op == isa::kNormSoftmax) {
      softmaxRow(n, in, out, sram.parameter);
    } else {
      layerNormRow(n, in, out, sram.parameter);
    }
  }
}

}  // namespace npu::sim
