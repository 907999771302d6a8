// The per-layer accuracy report: the metrics on hand-computed vectors, isolated against
// accumulated runs, and the flags with their likely reasons.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/quantize_model.h"
#include "test_models.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::makeSmallNet;
using testing::smallNetSamples;

constexpr double kInf = std::numeric_limits<double>::infinity();

const LayerAccuracy& layerNamed(const AccuracyReport& r, const std::string& name) {
  for (const LayerAccuracy& l : r.layers) {
    if (l.layer == name) {
      return l;
    }
  }
  throw Error("no layer " + name);
}

bool hasReason(const LayerAccuracy& l, const std::string& prefix) {
  return std::any_of(l.reasons.begin(), l.reasons.end(),
                     [&](const std::string& r) { return r.rfind(prefix, 0) == 0; });
}

TEST(Agreement, CosineAndSqnrOverSamples) {
  AgreementAccumulator a;
  EXPECT_EQ(a.result().cosine, 1.0);
  EXPECT_TRUE(std::isinf(a.result().sqnrDb));
  std::vector<float> ref{3.0F, 4.0F};
  a.add(ref, ref);
  EXPECT_DOUBLE_EQ(a.result().cosine, 1.0);
  EXPECT_TRUE(std::isinf(a.result().sqnrDb) && a.result().sqnrDb > 0);
  // Second sample: ref (0, 5), q (5, 5). Over both: dot 25 + 25 = 50, |ref|^2 = 50,
  // |q|^2 = 25 + 50 = 75, noise 25.
  a.add(std::vector<float>{0.0F, 5.0F}, std::vector<float>{5.0F, 5.0F});
  EXPECT_DOUBLE_EQ(a.result().cosine, 50.0 / (std::sqrt(50.0) * std::sqrt(75.0)));
  EXPECT_DOUBLE_EQ(a.result().sqnrDb, 10.0 * std::log10(2.0));
  AgreementAccumulator zero;
  zero.add(std::vector<float>{0.0F}, std::vector<float>{1.0F});
  EXPECT_EQ(zero.result().cosine, 0.0);
  EXPECT_EQ(errorOf([&] { zero.add(ref, std::vector<float>{1.0F}); }),
            "cannot compare 1 values with 2");
}

TEST(AccuracyReport, EveryNpuOpIsolatedAndAccumulated) {
  QuantizedModel m = quantizeModel(makeSmallNet(), smallNetSamples(8), QuantConfig{});
  AccuracyReport r = accuracyReport(m, smallNetSamples(4, 50));
  std::size_t ops = 0;
  for (const NpuSegment& s : m.npuSegments) {
    ops += s.graph.ops.size();
  }
  ASSERT_EQ(r.layers.size(), ops);
  EXPECT_EQ(r.samples, 4U);
  // The first layer reads the graph input: alone or in the model, it sees the same int8 input.
  const LayerAccuracy& conv1 = r.layers.front();
  EXPECT_EQ(conv1.layer, "conv1");
  EXPECT_EQ(conv1.op, "Conv+Relu");
  EXPECT_EQ(conv1.isolated.cosine, conv1.accumulated.cosine);
  EXPECT_EQ(conv1.isolated.sqnrDb, conv1.accumulated.sqnrDb);
  ASSERT_TRUE(conv1.weightSqnrDb.has_value());
  EXPECT_GT(*conv1.weightSqnrDb, 35.0);
  for (const LayerAccuracy& l : r.layers) {
    EXPECT_GT(l.isolated.cosine, 0.99) << l.layer;
    EXPECT_GT(l.accumulated.cosine, 0.95) << l.layer;
    EXPECT_FALSE(l.flagged) << l.layer;
  }
  // A max pool alone only re-rounds what it was given: exact on its quantized input, so its
  // isolated error is the output's own rounding.
  EXPECT_GT(layerNamed(r, "maxpool").isolated.sqnrDb, 35.0);
  EXPECT_TRUE(layerNamed(r, "branch_a").lut);
  ASSERT_EQ(r.outputs.size(), 1U);
  EXPECT_EQ(r.outputs[0].name, "probs");
  EXPECT_GT(r.outputs[0].agreement.cosine, 0.99);
  ASSERT_TRUE(r.outputs[0].top1Agreement.has_value());
  EXPECT_EQ(errorOf([&] { accuracyReport(m, {}); }),
            "smallnet.onnx: no samples to measure accuracy on");
}

TEST(AccuracyReport, FlagsWithLikelyReasons) {
  // One outlier in the calibration input stretches the min/max range of 'x' ~20x.
  std::vector<TensorMap> samples = smallNetSamples(16);
  samples[3].at("x").data[100] = 20.0F;
  QuantConfig config = parseQuantConfig(R"(
weights: {granularity: per_tensor}
overrides:
  - layers: [relu6]
    activations: {method: percentile, percentile: 60}
)",
                                        "q.yaml");
  // pw's first output channel gets weights 16x the others': one per-tensor scale fits it badly.
  Graph graph = makeSmallNet();
  for (const Node& node : graph.nodes()) {
    if (node.name == "pw") {
      Value& w = graph.value(node.input(1));
      std::vector<float> values(w.data->floats().begin(), w.data->floats().end());
      for (std::size_t i = 0; i < 8; ++i) {
        values[i] *= 16.0F;
      }
      w.data = TensorData(std::move(values));
    }
  }
  QuantizedModel m = quantizeModel(std::move(graph), samples, config);
  AccuracyReport r = accuracyReport(m, smallNetSamples(2), AccuracyThresholds{0.9999, 60.0});
  const LayerAccuracy& conv1 = layerNamed(r, "conv1");
  EXPECT_TRUE(conv1.flagged);
  EXPECT_FALSE(conv1.perChannel);
  EXPECT_TRUE(hasReason(
      conv1, "outlier range: 'x' is quantized over [-0.9999, 20] but 99.99% of |x| is below"))
      << conv1.reasons[0];
  EXPECT_TRUE(hasReason(layerNamed(r, "dw"),
                        "clipped range: 'relu6' (percentile) is quantized "
                        "over [0, "));
  const LayerAccuracy& pw = layerNamed(r, "pw");
  ASSERT_TRUE(pw.weightChannelRangeRatio.has_value());
  EXPECT_GT(*pw.weightChannelRangeRatio, 8.0);
  EXPECT_TRUE(hasReason(pw, "per-tensor weights: output channels' weight ranges differ"));
  const LayerAccuracy& sigmoid = layerNamed(r, "branch_a");
  EXPECT_TRUE(sigmoid.flagged);
  EXPECT_TRUE(hasReason(sigmoid,
                        "LUT range: the 256-entry table samples its input "
                        "'sigmoid#preact'"));
  for (const LayerAccuracy& l : r.layers) {
    EXPECT_EQ(l.flagged, !l.reasons.empty()) << l.layer;
  }
  // Thresholds nobody misses flag nothing.
  for (const LayerAccuracy& l : accuracyReport(m, smallNetSamples(1), {-1.0, -kInf}).layers) {
    EXPECT_FALSE(l.flagged) << l.layer;
  }
}

}  // namespace
}  // namespace npu::compiler
