// Every variant of the requant kernels this CPU runs computes the definition bit for bit: random
// and extreme sums, multipliers and shifts (t from 1 to 62, so the rounding term and the products
// reach their largest), zero points and clips that cut at, inside and beyond the int32 range,
// channel counts that leave a partial register, and sums read with a stride.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "npu/simulator/requant_kernels.h"

namespace npu::sim {
namespace {

using Int32Limits = std::numeric_limits<std::int32_t>;
// Wide enough that no intermediate value of the definition overflows.
__extension__ typedef __int128 Int128;

/// The contract of RequantKernels::requantRow, written out with 128-bit intermediate values.
std::vector<std::int8_t> definition(const RequantRow& row) {
  std::vector<std::int8_t> out(static_cast<std::size_t>(row.pixels * row.channels));
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    for (std::int64_t c = 0; c < row.channels; ++c) {
      const int t = row.rightShift[c];
      const Int128 product = static_cast<Int128>(row.acc[p * row.stride + c]) * row.multiplier[c] +
                             (static_cast<Int128>(1) << (t - 1));
      // Floor division by 2^t, written without relying on >> of negative values.
      const Int128 divisor = static_cast<Int128>(1) << t;
      Int128 v = product / divisor;
      if (product % divisor != 0 && product < 0) {
        v -= 1;
      }
      v = std::clamp<Int128>(v, Int32Limits::min(), Int32Limits::max()) + row.outZp;
      v = std::clamp<Int128>(v, row.clipLo, row.clipHi);
      out[static_cast<std::size_t>(p * row.channels + c)] =
          static_cast<std::int8_t>(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) & 0xFF));
    }
  }
  return out;
}

TEST(RequantKernels, EveryVariantThisCpuRunsMatchesTheDefinition) {
  const std::vector<RequantKernels> variants = supportedRequantKernels();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.back().isa, "portable");
  EXPECT_EQ(requantKernels().isa, variants.front().isa);
  std::string names;
  for (const RequantKernels& k : variants) {
    names += std::string(k.isa) + " ";
  }
  RecordProperty("variants", names);
  for (const RequantKernels& k : variants) {
    SCOPED_TRACE(std::string(k.isa));
    std::mt19937 rng(13);
    for (int trial = 0; trial < 2000; ++trial) {
      const bool extreme = trial % 3 == 0;
      RequantRow row;
      row.pixels = 1 + static_cast<std::int64_t>(rng() % 5);
      row.channels = 1 + static_cast<std::int64_t>(rng() % 40);
      row.stride = row.channels + static_cast<std::int64_t>(rng() % 3);
      std::vector<std::int32_t> acc(static_cast<std::size_t>(row.pixels * row.stride));
      for (auto& a : acc) {
        a = extreme ? (rng() % 2 == 0 ? Int32Limits::min() : Int32Limits::max())
                    : static_cast<std::int32_t>(rng()) >> (rng() % 24);
      }
      std::vector<std::int32_t> multiplier(static_cast<std::size_t>(row.channels));
      std::vector<std::int32_t> shift(static_cast<std::size_t>(row.channels));
      for (std::size_t c = 0; c < multiplier.size(); ++c) {
        multiplier[c] = extreme ? (rng() % 2 == 0 ? Int32Limits::min() : Int32Limits::max())
                                : static_cast<std::int32_t>(rng());
        shift[c] = 1 + static_cast<std::int32_t>(rng() % 62);
      }
      // Clips inside int8 (the usual case), or anywhere in and beyond int32 around zero points
      // that push the int32 clamp's bounds past them.
      const std::int64_t zpRange = trial % 5 == 0 ? (std::int64_t{1} << 33) : 256;
      row.outZp =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(zpRange)) - zpRange / 2;
      std::int64_t lo =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(zpRange)) - zpRange / 2;
      std::int64_t hi =
          static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(zpRange)) - zpRange / 2;
      if (lo > hi) {
        std::swap(lo, hi);
      }
      row.clipLo = trial % 7 == 0 ? -128 : lo;
      row.clipHi = trial % 7 == 0 ? 127 : hi;
      row.acc = acc.data();
      row.multiplier = multiplier.data();
      row.rightShift = shift.data();
      std::vector<std::int8_t> out(static_cast<std::size_t>(row.pixels * row.channels), 7);
      row.out = out.data();
      k.requantRow(row);
      ASSERT_EQ(out, definition(row))
          << row.pixels << " pixels, " << row.channels << " channels, zp " << row.outZp
          << ", clip [" << row.clipLo << ", " << row.clipHi << "]";
    }
  }
}

}  // namespace
}  // namespace npu::sim
