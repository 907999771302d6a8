// The oneDNN path of the golden convolutions against the plain loops on random shapes: int8
// accumulators bit for bit, fp32 within the rounding bound of docs/numerics.md. ctest also runs
// these cases with oneDNN held to AVX2 (no VNNI: the split-weight path).
#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "fp32_test_util.h"
#include "npu/golden/fp32_conv.h"
#include "npu/golden/int8_conv.h"
#include "npu/golden/plain_kernels.h"

namespace npu::golden {
namespace {

struct ConvShape {
  std::int64_t n, h, w, inC, outC, groups, kH, kW, stride, dilation;
};

/// Dense, grouped, depthwise (also with a channel multiplier), strided, dilated, 1x1 (also strided:
/// the decimated input, and 1x3 strided in both directions), FC-like and the first layer of
/// ResNet.
const std::vector<ConvShape> kShapes{
    {1, 9, 11, 16, 24, 1, 3, 3, 1, 1},   {1, 12, 12, 32, 32, 32, 3, 3, 1, 1},
    {1, 13, 10, 32, 32, 32, 3, 3, 2, 1}, {1, 10, 10, 8, 16, 8, 3, 3, 1, 1},
    {2, 11, 9, 12, 6, 3, 5, 5, 2, 1},    {1, 9, 9, 16, 16, 1, 3, 3, 1, 2},
    {1, 7, 7, 64, 40, 1, 1, 1, 1, 1},    {3, 1, 1, 200, 10, 1, 1, 1, 1, 1},
    {1, 23, 23, 3, 64, 1, 7, 7, 2, 1},   {1, 8, 8, 20, 20, 4, 3, 1, 1, 1},
    {1, 6, 6, 5, 7, 1, 2, 3, 1, 1},      {1, 14, 14, 96, 96, 96, 5, 5, 2, 1},
    {1, 13, 12, 32, 48, 1, 1, 1, 2, 1},  {2, 9, 10, 24, 16, 2, 1, 1, 3, 1},
    {1, 8, 9, 16, 16, 1, 1, 3, 2, 1},
};

class Random {
 public:
  explicit Random(unsigned seed) : m_rng(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(m_rng); }
  float normal() { return std::normal_distribution<float>(0.0F, 1.0F)(m_rng); }

 private:
  std::mt19937 m_rng;
};

Conv2dInt8Params int8Params(const ConvShape& s, Random& random) {
  Conv2dInt8Params p;
  p.groups = s.groups;
  p.strides = {s.stride, s.stride};
  p.dilations = {s.dilation, s.dilation};
  p.pads = {random.uniform(0, 2), random.uniform(0, 2), random.uniform(0, 2), random.uniform(0, 2)};
  p.inputZeroPoint = random.uniform(0, 2) == 0 ? -128 : random.uniform(-128, 127);
  for (std::int64_t c = 0; c < s.outC; ++c) {
    p.bias.push_back(random.uniform(-100000, 100000));
    p.multipliers.push_back(quantizeMultiplier(
        std::ldexp(1.0 + random.uniform(0, 999) / 1000.0, -random.uniform(9, 16))));
  }
  return p;
}

Int8Tensor randomInt8(std::vector<std::int64_t> shape, Random& random, int lo, int hi) {
  Int8Tensor t = makeInt8Tensor(std::move(shape));
  for (auto& v : t.data) {
    v = static_cast<std::int8_t>(random.uniform(lo, hi));
  }
  return t;
}

std::string describe(const ConvShape& s) {
  return "shape " + std::to_string(s.h) + "x" + std::to_string(s.w) + "x" + std::to_string(s.inC) +
         " -> " + std::to_string(s.outC) + ", groups " + std::to_string(s.groups) + ", kernel " +
         std::to_string(s.kH) + "x" + std::to_string(s.kW) + ", stride " +
         std::to_string(s.stride) + ", dilation " + std::to_string(s.dilation);
}

TEST(OneDnnConv, RunsOnTheIsaTheTestAsksFor) {
  // The AVX2 variant of this suite (ctest golden.onednn_conv_avx2) must really run without VNNI.
  if (const char* expected = std::getenv("NPU_EXPECT_ONEDNN_ISA")) {
    EXPECT_EQ(static_cast<int>(dnnl::get_effective_cpu_isa()), std::stoi(expected, nullptr, 0));
  }
}

TEST(OneDnnConv, Int8AccumulatorsEqualThePlainLoops) {
  Random random(22);
  for (const ConvShape& s : kShapes) {
    const Int8Tensor w = randomInt8({s.outC, s.kH, s.kW, s.inC / s.groups}, random, -127, 127);
    Conv2dInt8Params p = int8Params(s, random);
    // Every output stage: plain, clipped, double rounding, LUT.
    const int variant = random.uniform(0, 3);
    p.output.zeroPoint = random.uniform(-128, 127);
    if (variant >= 1) {
      p.output.clipLo = random.uniform(-128, -60);
      p.output.clipHi = random.uniform(60, 127);
    }
    if (variant == 2) {
      p.output.rounding = Rounding::Double;
    }
    if (variant == 3) {
      Lut lut{};
      for (int i = 0; i < 256; ++i) {
        lut[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(random.uniform(-128, 127));
      }
      p.output.lut = lut;
    }
    const Conv2dInt8Layer layer({s.n, s.h, s.w, s.inC}, w, p);
    for (int input = 0; input < 2; ++input) {
      const Int8Tensor x = randomInt8({s.n, s.h, s.w, s.inC}, random, -128, 127);
      ASSERT_EQ(layer.accumulators(x), plain::conv2dInt8Accumulators(x, w, p)) << describe(s);
      ASSERT_EQ(layer.run(x).data, plain::conv2dInt8(x, w, p).data) << describe(s);
    }
  }
}

TEST(OneDnnConv, SumsBeyondFloatPrecisionAreExact) {
  // 3x3x1024 taps of 255 x 127 reach 2.98e8, far past 2^24; a weight of -128 and odd sums too.
  Random random(7);
  const ConvShape s{1, 4, 5, 1024, 8, 1, 3, 3, 1, 1};
  Int8Tensor w = randomInt8({s.outC, s.kH, s.kW, s.inC}, random, 120, 127);
  w.data[5] = -128;
  w.data[w.data.size() - 1] = 3;
  Conv2dInt8Params p;
  p.pads = {1, 0, 1, 2};
  p.inputZeroPoint = -128;
  p.multipliers = {{1 << 30, -20}};
  p.bias = std::vector<std::int32_t>(static_cast<std::size_t>(s.outC), 12345);
  Int8Tensor x = randomInt8({s.n, s.h, s.w, s.inC}, random, 125, 127);
  x.data[17] = -128;
  const std::vector<std::int32_t> expected = plain::conv2dInt8Accumulators(x, w, p);
  EXPECT_GT(*std::max_element(expected.begin(), expected.end()), 1 << 28);
  EXPECT_EQ(conv2dInt8Accumulators(x, w, p), expected);
  // run() checks oneDNN's sums inside its output stage: the same outputs as the plain loops.
  EXPECT_EQ(conv2dInt8(x, w, p).data, plain::conv2dInt8(x, w, p).data);
  // The same sums at the other sign: weights at -127 and the input zero point at +127.
  for (auto& v : w.data) {
    v = static_cast<std::int8_t>(-v / 2 - 60);
  }
  p.inputZeroPoint = 127;
  for (auto& v : x.data) {
    v = static_cast<std::int8_t>(-128 + (v & 1));
  }
  EXPECT_EQ(conv2dInt8Accumulators(x, w, p), plain::conv2dInt8Accumulators(x, w, p));
  EXPECT_EQ(conv2dInt8(x, w, p).data, plain::conv2dInt8(x, w, p).data);
}

TEST(OneDnnConv, OutputsStayExactWhenTheSumsPassFloatPrecision) {
  // Every pixel sums 255 x (about 124) over 3x3x1024 taps, about 2.9e8, while the bias brings each
  // accumulator back to its channel index: a sum off by a few units would show in the output.
  Random random(11);
  const ConvShape s{1, 5, 6, 1024, 16, 1, 3, 3, 1, 1};
  const Int8Tensor w = randomInt8({s.outC, s.kH, s.kW, s.inC}, random, 120, 127);
  Int8Tensor x = makeInt8Tensor({s.n, s.h, s.w, s.inC}, 127);
  Conv2dInt8Params p;
  p.inputZeroPoint = -128;
  p.multipliers = {{1 << 30, 0}};  // 0.5
  const std::int64_t taps = s.kH * s.kW * s.inC;
  for (std::int64_t c = 0; c < s.outC; ++c) {
    std::int64_t sum = 0;
    for (std::int64_t t = 0; t < taps; ++t) {
      sum += w.data[static_cast<std::size_t>(c * taps + t)];
    }
    p.bias.push_back(static_cast<std::int32_t>(-255 * sum + 2 * c));
  }
  const Int8Tensor y = conv2dInt8(x, w, p);
  ASSERT_EQ(y.shape, (std::vector<std::int64_t>{1, 3, 4, s.outC}));
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    ASSERT_EQ(y.data[i], static_cast<std::int8_t>(i % static_cast<std::size_t>(s.outC))) << i;
  }
}

TEST(OneDnnConv, AccumulatorsWrapAt32Bits) {
  const Int8Tensor x{{1, 1, 1, 2}, {127, 127}};
  const Int8Tensor w{{1, 1, 1, 2}, {127, 127}};
  Conv2dInt8Params p;
  p.inputZeroPoint = -128;
  p.multipliers = {{1 << 30, 0}};
  p.bias = {std::numeric_limits<std::int32_t>::max() - 100};
  const std::vector<std::int32_t> acc = conv2dInt8Accumulators(x, w, p);
  EXPECT_EQ(acc, plain::conv2dInt8Accumulators(x, w, p));
  EXPECT_LT(acc[0], 0);
}

TEST(OneDnnConv, LayerRejectsAnotherShapeAndRunsOnSeveralThreads) {
  Random random(3);
  const ConvShape s = kShapes[0];
  const Int8Tensor w = randomInt8({s.outC, s.kH, s.kW, s.inC}, random, -127, 127);
  const Conv2dInt8Params p = int8Params(s, random);
  const Conv2dInt8Layer layer({1, s.h, s.w, s.inC}, w, p);
  EXPECT_EQ(testing::errorOf([&] {
              layer.run(makeInt8Tensor({1, s.h + 1, s.w, s.inC}));
            }),
            "conv2dInt8: input [1, 10, 11, 16] does not match the shape [1, 9, 11, 16] the layer "
            "was prepared for");
  std::vector<Int8Tensor> inputs;
  for (int i = 0; i < 8; ++i) {
    inputs.push_back(randomInt8({1, s.h, s.w, s.inC}, random, -128, 127));
  }
  std::vector<std::vector<std::int8_t>> results(inputs.size());
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = t; i < inputs.size(); i += 2) {
        results[i] = layer.run(inputs[i]).data;
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(results[i], plain::conv2dInt8(inputs[i], w, p).data) << "input " << i;
  }
}

TEST(OneDnnConv, Fp32WithinTheRoundingBoundOfThePlainLoops) {
  Random random(5);
  for (const ConvShape& s : kShapes) {
    FloatTensor x = makeFloatTensor({s.n, s.inC, s.h, s.w});
    FloatTensor w = makeFloatTensor({s.outC, s.inC / s.groups, s.kH, s.kW});
    std::vector<float> bias(static_cast<std::size_t>(s.outC));
    for (float& v : x.data) {
      v = random.normal();
    }
    for (float& v : w.data) {
      v = random.normal();
    }
    for (float& v : bias) {
      v = random.normal();
    }
    Conv2dParams p;
    p.group = s.groups;
    p.strides = {s.stride, s.stride};
    p.dilations = {s.dilation, s.dilation};
    p.pads = {random.uniform(0, 2), random.uniform(0, 2), random.uniform(0, 2),
              random.uniform(0, 2)};
    const FloatTensor expected = plain::conv2d(x, w, bias, p);
    const FloatTensor actual = Conv2dLayer(x.shape, w, bias, p).run(x);
    // Both sum the same K + 1 terms in some order: each is within K * 2^-24 * sum |terms| of the
    // exact sum (first-order bound), so they differ by at most twice that. sum |terms| comes from
    // the same conv on |x| and |w|.
    FloatTensor absX = x, absW = w;
    for (float& v : absX.data) {
      v = std::fabs(v);
    }
    for (float& v : absW.data) {
      v = std::fabs(v);
    }
    std::vector<float> absBias = bias;
    for (float& v : absBias) {
      v = std::fabs(v);
    }
    const FloatTensor magnitude = plain::conv2d(absX, absW, absBias, p);
    const double k = static_cast<double>(s.kH * s.kW * s.inC / s.groups + 1);
    ASSERT_EQ(actual.shape, expected.shape) << describe(s);
    for (std::size_t i = 0; i < expected.data.size(); ++i) {
      const double bound = 2.0 * k * std::ldexp(1.0, -24) * magnitude.data[i];
      ASSERT_LE(std::fabs(static_cast<double>(actual.data[i]) - expected.data[i]), bound)
          << describe(s) << ", element " << i;
    }
  }
}

}  // namespace
}  // namespace npu::golden
