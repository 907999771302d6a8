// Every instruction-set variant of the datapath's int16 kernels that this CPU can run computes
// what the definition says, bit for bit, including the 32-bit wrap-around of the accumulator.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npu/simulator/int16_kernels.h"

namespace npu::sim {
namespace {

std::int32_t wrap(std::int64_t value) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(value)));
}

TEST(Int16Kernels, EveryVariantThisCpuRunsMatchesTheDefinition) {
  const std::vector<Int16Kernels> variants = supportedInt16Kernels();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.back().isa, "portable");
  EXPECT_EQ(int16Kernels().isa, variants.front().isa);
  std::string names;
  for (const Int16Kernels& k : variants) {
    names += std::string(k.isa) + " ";
  }
  RecordProperty("variants", names);
  std::mt19937 rng(3);
  // Activations are x - zp in [-255, 255], weights int8; the extremes are drawn often.
  std::uniform_int_distribution<int> x(-255, 255);
  std::uniform_int_distribution<int> w(-128, 127);
  for (const Int16Kernels& k : variants) {
    SCOPED_TRACE(std::string(k.isa));
    // A patch long enough for the dot product itself to wrap: 70,000 x (-255) x (-128) =
    // 2,284,800,000 > INT32_MAX (a real 15x15 window over 312 channels is that long).
    {
      const std::vector<std::int16_t> a(70000, -255);
      const std::vector<std::int16_t> b(70000, -128);
      ASSERT_EQ(k.dot(a.data(), b.data(), 70000), wrap(std::int64_t{70000} * 255 * 128));
      ASSERT_LT(wrap(std::int64_t{70000} * 255 * 128), 0);
    }
    for (int trial = 0; trial < 400; ++trial) {
      const auto n = static_cast<std::int64_t>(trial < 80 ? trial : rng() % 5000);
      std::vector<std::int16_t> a(static_cast<std::size_t>(n));
      std::vector<std::int16_t> b(static_cast<std::size_t>(n));
      const bool extreme = trial % 5 == 0;
      for (std::int64_t i = 0; i < n; ++i) {
        a[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(extreme ? -255 : x(rng));
        b[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(extreme ? -128 : w(rng));
      }
      std::int64_t dot = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        dot += std::int64_t{a[static_cast<std::size_t>(i)]} * b[static_cast<std::size_t>(i)];
      }
      ASSERT_EQ(k.dot(a.data(), b.data(), n), wrap(dot)) << "n = " << n;

      // Accumulators near both ends of int32, so the per-lane sums wrap.
      std::vector<std::int32_t> acc(static_cast<std::size_t>(n));
      std::vector<std::int32_t> expected(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        const auto lane = static_cast<std::size_t>(i);
        acc[lane] = i % 3 == 0 ? INT32_MAX - 1000 : (i % 3 == 1 ? INT32_MIN + 1000 : x(rng));
        expected[lane] = wrap(std::int64_t{acc[lane]} + std::int64_t{a[lane]} * b[lane]);
      }
      k.multiplyAccumulate(acc.data(), a.data(), b.data(), n);
      ASSERT_EQ(acc, expected) << "n = " << n;
    }
  }
}

}  // namespace
}  // namespace npu::sim
