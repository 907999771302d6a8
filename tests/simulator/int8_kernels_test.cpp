// Every variant of the u8 x s8 dot-product blocks this CPU runs computes the definition bit for
// bit, over block shapes that leave remainders in every loop (pixels, channels, 64-byte steps)
// and over sums long enough to wrap the 32-bit accumulator.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npu/simulator/int8_kernels.h"

namespace npu::sim {
namespace {

std::vector<std::int32_t> definition(const std::vector<std::uint8_t>& patches, std::int64_t pixels,
                                     const std::vector<std::int8_t>& weights, std::int64_t channels,
                                     std::int64_t length) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(pixels * channels));
  for (std::int64_t p = 0; p < pixels; ++p) {
    for (std::int64_t c = 0; c < channels; ++c) {
      std::int64_t sum = 0;
      for (std::int64_t k = 0; k < length; ++k) {
        sum += std::int64_t{patches[static_cast<std::size_t>(p * length + k)]} *
               weights[static_cast<std::size_t>(c * length + k)];
      }
      out[static_cast<std::size_t>(p * channels + c)] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  }
  return out;
}

TEST(Int8DotKernels, EveryVariantThisCpuRunsMatchesTheDefinition) {
  const std::vector<Int8DotKernels> variants = supportedInt8DotKernels();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.back().isa, "portable");
  EXPECT_EQ(int8DotKernels().isa, variants.front().isa);
  std::string names;
  for (const Int8DotKernels& k : variants) {
    names += std::string(k.isa) + " ";
  }
  RecordProperty("variants", names);
  std::mt19937 rng(5);
  for (const Int8DotKernels& k : variants) {
    SCOPED_TRACE(std::string(k.isa));
    for (int trial = 0; trial < 300; ++trial) {
      const std::int64_t pixels = 1 + static_cast<std::int64_t>(rng() % 7);
      const std::int64_t channels = 1 + static_cast<std::int64_t>(rng() % 11);
      const std::int64_t length =
          trial < 130 ? trial + 1 : 1 + static_cast<std::int64_t>(rng() % 3000);
      std::vector<std::uint8_t> patches(static_cast<std::size_t>(pixels * length));
      std::vector<std::int8_t> weights(static_cast<std::size_t>(channels * length));
      const bool extreme = trial % 4 == 0;  // 255 x -128 everywhere: the largest magnitudes
      for (auto& x : patches) {
        x = extreme ? 255 : static_cast<std::uint8_t>(rng());
      }
      for (auto& w : weights) {
        w = extreme ? std::int8_t{-128} : static_cast<std::int8_t>(rng());
      }
      std::vector<std::int32_t> out(static_cast<std::size_t>(pixels * channels), 7);
      k.dotBlock(patches.data(), pixels, weights.data(), channels, length, out.data());
      ASSERT_EQ(out, definition(patches, pixels, weights, channels, length))
          << pixels << " pixels, " << channels << " channels, length " << length;
    }
    // 70,000 x 255 x -128 wraps past INT32_MIN.
    const std::vector<std::uint8_t> patches(70000, 255);
    const std::vector<std::int8_t> weights(70000, -128);
    std::int32_t out = 0;
    k.dotBlock(patches.data(), 1, weights.data(), 1, 70000, &out);
    EXPECT_EQ(out, definition(patches, 1, weights, 1, 70000)[0]);
    EXPECT_GT(out, 0);  // wrapped
  }
}

}  // namespace
}  // namespace npu::sim
