// Observers against hand-computed histograms: binning and doubling, min/max, percentile, KL
// (TensorRT entropy), MSE search; and range-to-parameter rules.
#include <gtest/gtest.h>

#include "npu/compiler/quant/observer.h"
#include "npu/compiler/quant/quant_params.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

using testing::errorOf;

std::vector<float> repeat(float v, int n) {
  return std::vector<float>(static_cast<std::size_t>(n), v);
}

TEST(Histogram, BinsAndDoublesByMergingPairs) {
  Histogram h(4);  // 8 bins
  h.add(std::vector<float>{0.5F, -0.5F, 1.0F, 0.0F});
  // limit 1, width 0.25: -0.5 -> bin 2, 0 -> 4, 0.5 -> 6, 1.0 (the limit) -> last bin 7.
  EXPECT_EQ(h.limit(), 1.0);
  EXPECT_EQ(h.counts(), (std::vector<double>{0, 0, 1, 0, 1, 0, 1, 1}));
  h.add(std::vector<float>{3.0F});
  // Doubled twice to limit 4 (width 1): old pairs merge into the middle half each time:
  // [0,0,1,0,1,0,1,1] -> [0,0,0,1,1,2,0,0] -> [0,0,0,1,3,0,0,0], then 3.0 -> bin 7.
  EXPECT_EQ(h.limit(), 4.0);
  EXPECT_EQ(h.counts(), (std::vector<double>{0, 0, 0, 1, 3, 0, 0, 1}));
  EXPECT_EQ(h.total(), 5.0);
  // |x| bins of width 1: [0,1) holds 0, 0.5, -0.5 and 1.0 (kept in its bin by the merge).
  EXPECT_EQ(h.absoluteCounts(), (std::vector<double>{4, 0, 0, 1}));
}

TEST(Histogram, ZerosBeforeTheFirstNonZeroValueLandInTheZeroBin) {
  Histogram h(4);
  h.add(std::vector<float>{0.0F, 0.0F});
  EXPECT_EQ(h.limit(), 0.0);
  h.add(std::vector<float>{-2.0F});
  EXPECT_EQ(h.limit(), 2.0);
  EXPECT_EQ(h.counts(), (std::vector<double>{1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(errorOf([] { Histogram bad(3); }),
            "histogram bins per side must be even and at least 2, got 3");
}

TEST(Histogram, MemoryIsBoundedWhateverTheDataSize) {
  TensorObserver o(2048);
  for (int i = 0; i < 200; ++i) {
    std::vector<float> batch(5000);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      batch[k] = static_cast<float>(i + 1) * (static_cast<float>(k) / 5000.0F - 0.5F);
    }
    o.observe(batch);
  }
  EXPECT_EQ(o.histogram().counts().size(), 4096U);
  EXPECT_EQ(o.count(), 1'000'000U);
  EXPECT_EQ(o.histogram().total(), 1e6);
  EXPECT_FLOAT_EQ(o.min(), -100.0F);
  EXPECT_GE(o.histogram().limit(), 100.0);
}

TEST(Observer, MinMax) {
  TensorObserver o(4);
  o.observe(std::vector<float>{-1.0F, 3.0F, 0.5F});
  EXPECT_EQ(minMaxRange(o, false), (Range{-1.0F, 3.0F}));
  EXPECT_EQ(minMaxRange(o, true), (Range{-3.0F, 3.0F}));
}

/// 98 x 0.1, one -0.9 and one 0.9: limit 0.9, width 0.225, counts [1,0,0,0,98,0,0,1].
TensorObserver twoOutliers() {
  TensorObserver o(4);
  std::vector<float> v = repeat(0.1F, 98);
  v.push_back(-0.9F);
  v.push_back(0.9F);
  o.observe(v);
  EXPECT_EQ(o.histogram().counts(), (std::vector<double>{1, 0, 0, 0, 98, 0, 0, 1}));
  return o;
}

TEST(Observer, PercentileFromTheCumulativeHistogram) {
  TensorObserver o = twoOutliers();
  // 99%: the 1st value is in bin 0, so the low end is the first bin whose cumulative count
  // passes 1 (bin 4, lower edge 0); the 99th is in bin 4 (upper edge 0.225).
  Range r = percentileRange(o, 99.0, false);
  EXPECT_FLOAT_EQ(r.lo, 0.0F);
  EXPECT_FLOAT_EQ(r.hi, 0.225F);
  // 100%: the outermost non-empty bins, clamped to the observed min and max.
  r = percentileRange(o, 100.0, false);
  EXPECT_FLOAT_EQ(r.lo, -0.9F);
  EXPECT_FLOAT_EQ(r.hi, 0.9F);
  // Symmetric on |x| = [98, 0, 0, 2]: 98% ends in bin 0, 99% in bin 3.
  EXPECT_FLOAT_EQ(percentileRange(o, 98.0, true).hi, 0.225F);
  EXPECT_FLOAT_EQ(percentileRange(o, 99.0, true).hi, 0.9F);
  EXPECT_FLOAT_EQ(percentileRange(o, 99.0, true).lo, -0.9F);
  EXPECT_EQ(errorOf([&] { percentileRange(o, 20.0, false); }), "percentile 20 is not in [50, 100]");
}

TEST(Observer, KlDivergenceOfNormalisedHistograms) {
  // p = [4, 3] / 7, q = [4, 2] / 6: 4/7 ln(6/7) + 3/7 ln(9/7) = 0.0196201.
  EXPECT_NEAR(klDivergence(std::vector<double>{4, 3}, std::vector<double>{4, 2}), 0.0196201, 1e-6);
  EXPECT_NEAR(klDivergence(std::vector<double>{4, 2, 0, 1}, std::vector<double>{3, 3, 0, 1}),
              0.0485431, 1e-6);  // 0.0485426 before smoothing the shared empty bin
}

TEST(Observer, EntropyPicksTheThresholdWithTheLeastKl) {
  // |x| histogram [4, 2, 0, 1] (width 0.225), 2 quantized levels. Candidates:
  //   i = 2: P = [4, 2+0+1] = [4, 3], Q = [4, 2]              KL = 0.01962
  //   i = 3: P = [4, 2, 1], Q = [4, (2+0)/2, (2+0)/2]          KL = 0.04389
  //   i = 4: P = [4, 2, 0, 1], Q = [3, 3, 0, 1]                KL = 0.04854
  // so the threshold is 2 bins = 0.45.
  TensorObserver o(4);
  std::vector<float> v = repeat(0.1F, 4);
  v.push_back(0.3F);
  v.push_back(0.3F);
  v.push_back(0.9F);
  o.observe(v);
  ASSERT_EQ(o.histogram().absoluteCounts(), (std::vector<double>{4, 2, 0, 1}));
  Range r = entropyRange(o, false, 2);
  EXPECT_FLOAT_EQ(r.lo, 0.1F);  // the observed minimum: nothing below it to cover
  EXPECT_FLOAT_EQ(r.hi, 0.45F);
  r = entropyRange(o, true, 2);
  EXPECT_FLOAT_EQ(r.lo, -0.45F);
  EXPECT_FLOAT_EQ(r.hi, 0.45F);
}

TEST(Observer, EntropyClipsTheTailOfAnExponential) {
  // 100000 quantiles of Exp(1): mean 1, maximum ln(200000) = 12.2. KL keeps the bulk and
  // clips the sparse tail.
  TensorObserver o;
  std::vector<float> v;
  for (int i = 0; i < 100000; ++i) {
    v.push_back(static_cast<float>(-std::log(1.0 - (i + 0.5) / 100000.0)));
  }
  o.observe(v);
  Range r = entropyRange(o, false);
  EXPECT_FLOAT_EQ(r.lo, o.min());
  EXPECT_GT(r.hi, 4.0F);
  EXPECT_LT(r.hi, 0.9F * o.max());
}

TEST(Observer, EntropyIgnoresTheExactZerosOfAReluOutput) {
  // A ReLU of a symmetric uniform: half exact zeros, half uniform on (0, 1). Zero is exact under
  // every threshold; counted in the first bin, the spike would pull KL to a threshold of fewer
  // than 2 * 256 bins (a quarter of the range), where the first level stays one bin wide.
  TensorObserver o;
  std::vector<float> v(50000, 0.0F);
  for (int i = 0; i < 50000; ++i) {
    v.push_back(static_cast<float>((i + 0.5) / 50000.0));
  }
  o.observe(v);
  EXPECT_EQ(o.zeros(), 50000U);
  Range r = entropyRange(o, false);
  EXPECT_EQ(r.lo, 0.0F);
  EXPECT_GT(r.hi, 0.95F);
}

TEST(Observer, MseKeepsAUniformRangeAndWeighsOutliersByCount) {
  TensorObserver uniform;
  std::vector<float> v;
  for (int i = 0; i <= 10000; ++i) {
    v.push_back(static_cast<float>(i) / 10000.0F * 2.0F - 1.0F);
  }
  uniform.observe(v);
  // Clipping a uniform distribution costs more than the finer step saves.
  EXPECT_EQ(mseRange(uniform, true), (Range{-1.0F, 1.0F}));

  // Symmetric, 100001 values uniform in [-1, 1] plus one at 10. A threshold t = k / 10 costs
  // (10 - t)^2 for the outlier and 100001 * s^2 / 12 for the rest, s = 2t / 255:
  // f(k) = (10 - k/10)^2 + 0.005126 k^2, least at k = 2 / 0.03025 = 66.1.
  v.clear();
  for (int i = 0; i <= 100000; ++i) {
    v.push_back(static_cast<float>(i) / 100000.0F * 2.0F - 1.0F);
  }
  v.push_back(10.0F);
  TensorObserver outlier;
  outlier.observe(v);
  Range r = mseRange(outlier, true);
  EXPECT_GE(r.hi, 6.4F);
  EXPECT_LE(r.hi, 6.8F);
  EXPECT_EQ(r.lo, -r.hi);
}

TEST(Observer, MethodNames) {
  EXPECT_EQ(parseObserverMethod("kl"), ObserverMethod::Entropy);
  EXPECT_EQ(parseObserverMethod("entropy"), ObserverMethod::Entropy);
  EXPECT_EQ(parseObserverMethod("mse"), ObserverMethod::Mse);
  EXPECT_EQ(parseObserverMethod("minmax"), ObserverMethod::MinMax);
  EXPECT_EQ(parseObserverMethod("percentile"), ObserverMethod::Percentile);
  EXPECT_EQ(parseObserverMethod("max"), std::nullopt);
}

TEST(QuantParams, AsymmetricSymmetricAndPowerOfTwo) {
  golden::QuantParams p = quantParamsForRange({0.0F, 2.55F}, false, false);
  EXPECT_FLOAT_EQ(p.scale, 0.01F);
  EXPECT_EQ(p.zeroPoint, -128);
  // [-1, 1]: scale 2/255, zp = round(-128 + 127.5) = round(-0.5) = -1 (half away from zero).
  p = quantParamsForRange({-1.0F, 1.0F}, false, false);
  EXPECT_FLOAT_EQ(p.scale, 2.0F / 255.0F);
  EXPECT_EQ(p.zeroPoint, -1);
  // The range is widened to include 0.
  p = quantParamsForRange({1.0F, 2.55F}, false, false);
  EXPECT_FLOAT_EQ(p.scale, 0.01F);
  EXPECT_EQ(p.zeroPoint, -128);
  p = quantParamsForRange({-1.0F, 0.5F}, true, false);
  EXPECT_FLOAT_EQ(p.scale, 1.0F / 127.0F);
  EXPECT_EQ(p.zeroPoint, 0);
  // 0.01 rounds up to 2^-6.
  p = quantParamsForRange({0.0F, 2.55F}, false, true);
  EXPECT_EQ(p.scale, 0.015625F);
  EXPECT_EQ(p.zeroPoint, -128);
  // 2/255 = 0.00784 rounds up to 2^-6; zp = round(-128 + 1 / 2^-6) = -64.
  p = quantParamsForRange({-1.0F, 1.0F}, false, true);
  EXPECT_EQ(p.scale, 0.015625F);
  EXPECT_EQ(p.zeroPoint, -64);
  // All zeros: any scale is exact; [0, 1] is used.
  p = quantParamsForRange({0.0F, 0.0F}, false, false);
  EXPECT_FLOAT_EQ(p.scale, 1.0F / 255.0F);
  EXPECT_EQ(p.zeroPoint, -128);
  EXPECT_EQ(representableRange({0.5F, -28}), (Range{-50.0F, 77.5F}));
}

TEST(QuantParams, PowerOfTwoBelowWhenTheEndsHoldFewValues) {
  // 10000 values spread over [0, 1] and one at 1.1: the scale 1.1/255 rounds up to 2^-7
  // (covering 1.99) or down to 2^-8 (covering 0.996, clipping the top 0.4%): down quantizes the
  // bulk twice as finely and wins.
  TensorObserver spread;
  std::vector<float> v;
  for (int i = 0; i < 10000; ++i) {
    v.push_back(static_cast<float>(i) / 9999.0F);
  }
  v.push_back(1.1F);
  spread.observe(v);
  const TensorObserver* observers[] = {&spread};
  golden::QuantParams p = powerOfTwoParamsForRange({0.0F, 1.1F}, false, observers);
  EXPECT_EQ(p.scale, 0.00390625F);
  EXPECT_EQ(p.zeroPoint, -128);
  EXPECT_LT(quantizationError(spread, 0.00390625, -128),
            quantizationError(spread, 0.0078125, -128));
  // Values filling [0, 1.9] evenly: rounding down would clip half of them.
  std::vector<float> even;
  for (int i = 0; i < 10000; ++i) {
    even.push_back(1.9F * static_cast<float>(i) / 9999.0F);
  }
  TensorObserver filled;
  filled.observe(even);
  observers[0] = &filled;
  p = powerOfTwoParamsForRange({0.0F, 1.9F}, false, observers);
  EXPECT_EQ(p.scale, 0.0078125F);
  // Without observers: rounded up.
  EXPECT_EQ(powerOfTwoParamsForRange({0.0F, 1.1F}, false, {}).scale, 0.0078125F);
}

}  // namespace
}  // namespace npu::compiler
