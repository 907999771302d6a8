// Every variant of the depthwise output-row kernels this CPU runs computes the definition bit for
// bit, over rows that leave remainders in every loop (pixel blocks, the channels past the last
// whole register), windows that overlap or stride, and sums that wrap the 32-bit accumulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "npu/simulator/depthwise_kernels.h"

namespace npu::sim {
namespace {

/// The contract of DepthwiseKernels::accumulateRow in 64-bit arithmetic, truncated at the end.
std::vector<std::int32_t> definition(const DepthwiseRow& row, const std::vector<std::int32_t>& w,
                                     std::vector<std::int32_t> acc) {
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    for (std::int64_t c = 0; c < row.channels; ++c) {
      std::int64_t sum = row.initial != nullptr
                             ? row.initial[c]
                             : acc[static_cast<std::size_t>(p * row.channels + c)];
      for (std::int64_t t = 0; t < row.taps; ++t) {
        sum += std::int64_t{row.input[p * row.pixelStride + row.tapOffset[t] + c]} *
               w[static_cast<std::size_t>(t * row.channels + c)];
      }
      acc[static_cast<std::size_t>(p * row.channels + c)] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  }
  return acc;
}

TEST(DepthwiseKernels, EveryVariantThisCpuRunsMatchesTheDefinition) {
  const std::vector<DepthwiseKernels> variants = supportedDepthwiseKernels();
  ASSERT_FALSE(variants.empty());
  EXPECT_EQ(variants.back().isa, "portable");
  EXPECT_EQ(depthwiseKernels().isa, variants.front().isa);
  std::string names;
  for (const DepthwiseKernels& k : variants) {
    names += std::string(k.isa) + " ";
  }
  RecordProperty("variants", names);
  for (const DepthwiseKernels& k : variants) {
    SCOPED_TRACE(std::string(k.isa));
    std::mt19937 rng(9);
    for (int trial = 0; trial < 400; ++trial) {
      // trial % 4 == 0: the largest magnitudes (-128 x -128, weights at the int8 extremes) on
      // accumulators near INT32_MAX, so the sums wrap.
      const bool extreme = trial % 4 == 0;
      DepthwiseRow row;
      row.pixels = 1 + static_cast<std::int64_t>(rng() % 11);    // 4-pixel blocks, remainders
      row.channels = 1 + static_cast<std::int64_t>(rng() % 70);  // whole registers and tails
      row.taps = 1 + static_cast<std::int64_t>(rng() % 12);
      row.pixelStride = static_cast<std::int64_t>(rng() % 3) * row.channels;
      std::vector<std::int64_t> tapOffset;
      std::int64_t reach = 0;
      for (std::int64_t t = 0; t < row.taps; ++t) {
        tapOffset.push_back(static_cast<std::int64_t>(rng() % 5) * row.channels);
        reach = std::max(reach, tapOffset.back());
      }
      reach += (row.pixels - 1) * row.pixelStride + row.channels;
      std::vector<std::int8_t> input(static_cast<std::size_t>(reach));
      for (auto& x : input) {
        x = extreme ? std::int8_t{-128} : static_cast<std::int8_t>(rng());
      }
      std::vector<std::int32_t> weights(static_cast<std::size_t>(row.taps * row.channels));
      for (auto& w : weights) {
        w = extreme ? (rng() % 2 == 0 ? -128 : 127) : static_cast<std::int8_t>(rng());
      }
      std::vector<std::int32_t> acc(static_cast<std::size_t>(row.pixels * row.channels));
      for (auto& a : acc) {
        a = extreme
                ? std::numeric_limits<std::int32_t>::max() - static_cast<std::int32_t>(rng() % 9)
                : static_cast<std::int32_t>(rng());
      }
      // Half the trials (extreme ones among them) start the sums from per-channel values.
      std::vector<std::int32_t> initial(static_cast<std::size_t>(row.channels));
      for (auto& a : initial) {
        a = extreme
                ? std::numeric_limits<std::int32_t>::min() + static_cast<std::int32_t>(rng() % 9)
                : static_cast<std::int32_t>(rng());
      }
      row.input = input.data();
      row.tapOffset = tapOffset.data();
      row.initial = trial % 8 >= 4 ? initial.data() : nullptr;
      const std::vector<std::int32_t> expected = definition(row, weights, acc);
      k.accumulateRow(row, weights.data(), acc.data());
      ASSERT_EQ(acc, expected) << row.pixels << " pixels, " << row.channels << " channels, "
                               << row.taps << " taps, pixel stride " << row.pixelStride;
    }
  }
}

}  // namespace
}  // namespace npu::sim
