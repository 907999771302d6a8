// Every variant of the u8 x s8 output-row kernels this CPU runs computes the definition bit for
// bit, over row shapes that leave remainders in every loop (pixel tiles, channel blocks, taps,
// channel groups), windows that overlap or stride, and sums long enough to wrap the 32-bit
// accumulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "npu/simulator/int8_kernels.h"

namespace npu::sim {
namespace {

/// The contract of Int8DotKernels::dotRow in 64-bit arithmetic, truncated to 32 bits at the end.
std::vector<std::int32_t> definition(const Int8WindowRow& row, const Int8PackedWeights& weights) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(row.pixels * weights.channels));
  for (std::int64_t p = 0; p < row.pixels; ++p) {
    for (std::int64_t c = 0; c < weights.channels; ++c) {
      std::int64_t sum = 0;
      for (std::int64_t t = 0; t < row.taps; ++t) {
        for (std::int64_t i = 0; i < row.groups * 4; ++i) {
          const std::int64_t k = t * row.groups + i / 4;
          sum += std::int64_t{row.input[p * row.pixelStride + row.tapOffset[t] + i]} *
                 weights.bytes[static_cast<std::size_t>((k * weights.channels + c) * 4 + i % 4)];
        }
      }
      out[static_cast<std::size_t>(p * weights.channels + c)] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  }
  return out;
}

struct RandomRow {
  std::vector<std::uint8_t> input;
  std::vector<std::int64_t> tapOffset;
  Int8WindowRow row;
  Int8PackedWeights weights;
};

RandomRow randomRow(std::mt19937& rng, bool extreme) {
  RandomRow r;
  r.row.pixels = 1 + static_cast<std::int64_t>(rng() % 15);  // 6- and 4-pixel tiles, remainders
  r.row.taps = 1 + static_cast<std::int64_t>(rng() % 9);
  r.row.groups = 1 + static_cast<std::int64_t>(rng() % 20);
  // Windows that overlap (stride below a window) or stride past each other.
  r.row.pixelStride = static_cast<std::int64_t>(rng() % 97);
  std::int64_t reach = 0;
  for (std::int64_t t = 0; t < r.row.taps; ++t) {
    r.tapOffset.push_back(static_cast<std::int64_t>(rng() % 300));
    reach = std::max(reach, r.tapOffset.back());
  }
  reach += (r.row.pixels - 1) * r.row.pixelStride + r.row.groups * 4;
  r.input.resize(static_cast<std::size_t>(reach));
  for (auto& x : r.input) {
    x = extreme ? 255 : static_cast<std::uint8_t>(rng());
  }
  // 1..9 blocks of 16: full 4-block tiles and every remainder.
  r.weights.channels = kInt8ChannelBlock * (1 + static_cast<std::int64_t>(rng() % 9));
  r.weights.bytes.resize(
      static_cast<std::size_t>(r.row.taps * r.row.groups * r.weights.channels * 4));
  for (auto& w : r.weights.bytes) {
    w = extreme ? std::int8_t{-128} : static_cast<std::int8_t>(rng());
  }
  r.row.input = r.input.data();
  r.row.tapOffset = r.tapOffset.data();
  return r;
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
  for (const Int8DotKernels& k : variants) {
    SCOPED_TRACE(std::string(k.isa));
    std::mt19937 rng(5);
    for (int trial = 0; trial < 300; ++trial) {
      const bool extreme = trial % 4 == 0;  // 255 x -128 everywhere: the largest magnitudes
      const RandomRow r = randomRow(rng, extreme);
      std::vector<std::int32_t> out(static_cast<std::size_t>(r.row.pixels * r.weights.channels), 7);
      k.dotRow(r.row, r.weights, out.data());
      ASSERT_EQ(out, definition(r.row, r.weights))
          << r.row.pixels << " pixels, " << r.weights.channels << " channels, " << r.row.taps
          << " taps of " << r.row.groups << " groups, pixel stride " << r.row.pixelStride;
    }
    // One tap of 17,500 groups: 70,000 x 255 x -128 wraps past INT32_MIN.
    RandomRow r = randomRow(rng, true);
    r.row.pixels = 1;
    r.row.taps = 1;
    r.row.groups = 17500;
    r.tapOffset = {0};
    r.input.assign(70000, 255);
    r.weights.channels = kInt8ChannelBlock;
    r.weights.bytes.assign(static_cast<std::size_t>(17500 * kInt8ChannelBlock * 4), -128);
    r.row.input = r.input.data();
    r.row.tapOffset = r.tapOffset.data();
    std::vector<std::int32_t> out(kInt8ChannelBlock);
    k.dotRow(r.row, r.weights, out.data());
    EXPECT_EQ(out, definition(r.row, r.weights));
    EXPECT_GT(out[0], 0);  // wrapped
  }
}

}  // namespace
}  // namespace npu::sim
