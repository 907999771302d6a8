// Realize and the partitioned run: the integer parameters of each quantized op, the golden int8
// run end to end within the expected error of fp32 for every strategy, and the same model with
// its NPU segments on the simulator, bit-exact with golden.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "npu/compiler/codegen/codegen.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/realize.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "npu/compiler/quant/tensor_layout.h"
#include "npu/compiler/quant/weight_quantization.h"
#include "npu/golden/fp32_activation.h"
#include "npu/simulator/simulate.h"
#include "test_models.h"

namespace npu::compiler {

/// ctest names carry the printed parameter: the strategy's name, not its byte.
void PrintTo(DispatchStrategy strategy, std::ostream* os) {
  *os << strategyName(strategy);
}

namespace {

using testing::attrs;
using testing::errorOf;
using testing::GraphBuilder;
using testing::makeSmallNet;
using testing::relativeError;
using testing::smallNetSamples;

template <typename T>
const T& opNamed(const NpuSegment& s, const std::string& name) {
  for (const QOp& op : s.graph.ops) {
    if (opName(op) == name) {
      return std::get<T>(op);
    }
  }
  throw Error("no op " + name);
}

const QTensor& tensorNamed(const NpuSegment& s, const std::string& name) {
  for (const QTensor& t : s.graph.tensors) {
    if (t.name == name) {
      return t;
    }
  }
  throw Error("no tensor " + name);
}

golden::QuantParams paramsOf(const QTensor& t) {
  return {static_cast<float>(t.scale), t.zeroPoint};
}

TEST(TensorLayout, NchwFloatToNhwcInt8AndBack) {
  golden::FloatTensor x{{1, 2, 1, 3}, {0.0F, 0.1F, 0.2F, 1.0F, 1.1F, 1.2F}};
  golden::Int8Tensor q = quantizeToNhwc(x, {0.1F, -10});
  EXPECT_EQ(q.shape, (Shape{1, 1, 3, 2}));
  EXPECT_EQ(q.data, (std::vector<std::int8_t>{-10, 0, -9, 1, -8, 2}));
  golden::FloatTensor back = dequantizeToNchw(q, {0.1F, -10}, x.shape);
  EXPECT_LT(relativeError(back, x), 1e-6);
  EXPECT_EQ(quantizeToNhwc(golden::FloatTensor{{1, 3}, {1, 2, 3}}, {1.0F, 0}).shape,
            (Shape{1, 1, 1, 3}));
  EXPECT_EQ(errorOf([] {
              quantizeToNhwc(golden::FloatTensor{{2, 3}, std::vector<float>(6)}, {});
            }),
            "tensor of shape [2, 3] has no NHWC form on the NPU ([1, C, H, W] or [1, C])");
}

TEST(WeightQuantization, PowerOfTwoScalesRoundDownWhenThatFitsBetter) {
  // Channel 0: 100 weights spread over [-1, 1] and one at 1.02. 1.02/127 rounds up to 2^-6 or
  // down to 2^-7 (covering +-0.992, clipping one weight): down halves the error of the rest.
  // Channel 1: every weight +-0.5, exact at 2^-7 (64 steps), clipped at 2^-8: up.
  std::vector<float> w;
  for (int i = 0; i < 100; ++i) {
    w.push_back(-1.0F + 2.0F * static_cast<float>(i) / 99.0F);
  }
  w.push_back(1.02F);
  for (int i = 0; i < 101; ++i) {
    w.push_back(i % 2 == 0 ? 0.5F : -0.5F);
  }
  WeightSettings settings;
  settings.powerOfTwo = true;
  QuantizedConvWeights q = quantizeConvWeights(w, Shape{2, 101, 1, 1}, {}, 0.01F, settings);
  EXPECT_EQ(q.scales, (std::vector<float>{0.0078125F, 0.0078125F}));
  settings.powerOfTwo = false;
  q = quantizeConvWeights(w, Shape{2, 101, 1, 1}, {}, 0.01F, settings);
  EXPECT_FLOAT_EQ(q.scales[0], 1.02F / 127.0F);
  // A bias that needs a larger scale to fit in 2^30 is never rounded down.
  settings.powerOfTwo = true;
  std::vector<float> bias{0.0F, 1e8F};
  q = quantizeConvWeights(w, Shape{2, 101, 1, 1}, bias, 0.01F, settings);
  // 1e8 / (0.01 * 2^30) = 9.3 is the least scale that fits; the next power of two is 16.
  EXPECT_EQ(q.scales[1], 16.0F);
  EXPECT_LE(1e8 / (0.01 * q.scales[1]), 1073741824.0);
}

TEST(Realize, ConvParametersFollowTheNumerics) {
  Graph g = makeSmallNet();
  QuantizedModel m = quantizeModel(g, smallNetSamples(6), QuantConfig{});
  ASSERT_EQ(m.npuSegments.size(), 2U);
  const NpuSegment& s = m.npuSegments[0];
  const QConv& dw = opNamed<QConv>(s, "dw");
  const QTensor& in = tensorNamed(s, "maxpool");
  const QTensor& out = tensorNamed(s, "relu6");
  // Depthwise OHWI [8, 3, 3, 1], symmetric weights, per-channel scale max|w| / 127.
  EXPECT_EQ(dw.weights.shape, (Shape{8, 3, 3, 1}));
  EXPECT_EQ(dw.params.groups, 8);
  EXPECT_EQ(dw.params.inputZeroPoint, in.zeroPoint);
  EXPECT_EQ(dw.params.pads, (std::array<std::int64_t, 4>{1, 1, 1, 1}));
  const Value& w = m.graph.value(*m.graph.findValue("dw.w"));
  const Value& b = m.graph.value(*m.graph.findValue("dw.b"));
  std::span<const float> wf = w.data->floats();
  for (std::int64_t c = 0; c < 8; ++c) {
    float maxAbs = 0.0F;
    for (int k = 0; k < 9; ++k) {
      maxAbs = std::max(maxAbs, std::fabs(wf[c * 9 + k]));
    }
    float sw = maxAbs / 127.0F;
    std::int8_t peak = 0;
    for (int k = 0; k < 9; ++k) {
      std::int8_t q = dw.weights.data[c * 9 + k];
      EXPECT_EQ(q, static_cast<std::int8_t>(std::round(wf[c * 9 + k] / sw)));
      peak = std::max<std::int8_t>(peak, static_cast<std::int8_t>(std::abs(q)));
    }
    EXPECT_EQ(peak, 127);
    EXPECT_EQ(dw.params.bias[c],
              static_cast<std::int32_t>(std::round(b.data->floats()[c] / (in.scale * sw))));
    EXPECT_EQ(dw.params.multipliers[c],
              golden::quantizeMultiplier(static_cast<double>(static_cast<float>(in.scale)) * sw /
                                         static_cast<float>(out.scale)));
  }
  // The fused ReLU6 is the clip [max(-128, zp), Q(6)].
  EXPECT_EQ(dw.params.output.zeroPoint, out.zeroPoint);
  EXPECT_EQ(dw.params.output.clipLo, std::max(-128, out.zeroPoint));
  EXPECT_EQ(dw.params.output.clipHi, golden::quantizeValue(6.0F, paramsOf(out)));
  EXPECT_FALSE(dw.params.output.lut);

  // The sigmoid epilogue: requant to the pre-activation scale, then the LUT to the output's.
  const QConv& a = opNamed<QConv>(s, "branch_a");
  golden::QuantParams pre = m.calibration.at("sigmoid#preact").params;
  ASSERT_TRUE(a.params.output.lut);
  EXPECT_EQ(a.params.output.zeroPoint, pre.zeroPoint);
  EXPECT_EQ(*a.params.output.lut,
            golden::buildLut([](float x) { return golden::scalar::sigmoid(x); }, pre,
                             paramsOf(tensorNamed(s, "sigmoid"))));
  // Residual add: TFLite multipliers, fused ReLU as clip.
  const QAdd& add = opNamed<QAdd>(s, "add");
  EXPECT_EQ(add.params.output.clipLo, std::max(-128, tensorNamed(s, "relu_add").zeroPoint));
  // Byte moves share: concat inputs and output.
  const QConcat& cat = opNamed<QConcat>(s, "concat");
  for (TensorId t : cat.inputs) {
    EXPECT_EQ(s.graph.tensors[t].scale, s.graph.tensors[cat.output].scale);
  }
  // Borders: x in, concat out.
  EXPECT_EQ(s.inputValues, std::vector<std::string>{"x"});
  ASSERT_EQ(s.outputValues.size(), 1U);
  EXPECT_EQ(s.outputValues[0].first, "concat");
  // The FC is a 1x1 conv on [1, 1, 1, C].
  const NpuSegment& head = m.npuSegments[1];
  const QConv& fc = opNamed<QConv>(head, "fc/conv");
  EXPECT_EQ(fc.weights.shape, (Shape{10, 1, 1, 8}));
  EXPECT_EQ(head.graph.tensors[fc.input].shape, (Shape{1, 1, 1, 8}));
  const auto fcAt = std::find_if(head.graph.ops.begin(), head.graph.ops.end(), [](const QOp& op) {
    return std::holds_alternative<QConv>(op) && std::get<QConv>(op).name == "fc/conv";
  });
  ASSERT_NE(fcAt, head.graph.ops.end());
  EXPECT_TRUE(head.origins[static_cast<std::size_t>(fcAt - head.graph.ops.begin())]
                  .weightSqnrDb.has_value());
}

/// cosine similarity of two tensors.
double cosine(const golden::FloatTensor& a, const golden::FloatTensor& b) {
  double ab = 0.0;
  double aa = 0.0;
  double bb = 0.0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    ab += static_cast<double>(a.data[i]) * b.data[i];
    aa += static_cast<double>(a.data[i]) * a.data[i];
    bb += static_cast<double>(b.data[i]) * b.data[i];
  }
  return ab / std::sqrt(aa * bb);
}

class EveryStrategy : public ::testing::TestWithParam<DispatchStrategy> {};

TEST_P(EveryStrategy, GoldenInt8RunIsWithinTheExpectedErrorOfFp32) {
  Graph g = makeSmallNet();
  QuantConfig config;
  config.strategy = GetParam();
  QuantizedModel m = quantizeModel(g, smallNetSamples(16), config);
  Interpreter fp32(m.graph);
  for (unsigned seed = 100; seed < 104; ++seed) {
    TensorMap sample = smallNetSamples(1, seed)[0];
    TensorMap expected;
    TensorMap actual;
    fp32.run(sample,
             [&](const Value& v, const golden::FloatTensor& t) { expected.emplace(v.name, t); });
    TensorMap out = runPartitionedModelGolden(
        m, sample,
        [&](const Value& v, const golden::FloatTensor& t) { actual.emplace(v.name, t); });
    // The logits before the softmax: int8 noise of a 9-layer net, a few percent at most. (With
    // the softmax on the NPU too, the FC's flatten is an alias inside the segment and the logits
    // are reported under the conv's name.)
    const golden::FloatTensor& logits =
        actual.contains("fc") ? actual.at("fc") : actual.at("fc.conv");
    EXPECT_GT(cosine(logits, expected.at("fc")), 0.999) << "seed " << seed;
    EXPECT_LT(relativeError(logits, expected.at("fc")), 0.05) << "seed " << seed;
    // An NPU softmax writes probabilities in steps of 1/256.
    EXPECT_LT(relativeError(out.at("probs"), expected.at("probs")), 0.02) << "seed " << seed;
    // Every intermediate is reported; the first conv's error is about one LSB.
    const golden::FloatTensor& relu1 = actual.at("relu1");
    double scale = m.calibration.at("relu1").params.scale;
    double worst = 0.0;
    for (std::size_t i = 0; i < relu1.data.size(); ++i) {
      worst = std::max(worst, std::fabs(relu1.data[i] - expected.at("relu1").data[i]) / scale);
    }
    EXPECT_LE(worst, 2.0);
    // The callback path gives the same bytes as the golden path.
    TensorMap viaCallback = runPartitionedModel(m, sample, goldenSegmentRunner());
    EXPECT_EQ(viaCallback.at("probs").data, out.at("probs").data);
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, EveryStrategy,
                         ::testing::Values(DispatchStrategy::Conservative,
                                           DispatchStrategy::Aggressive, DispatchStrategy::AllIn),
                         [](const ::testing::TestParamInfo<DispatchStrategy>& info) {
                           return std::string(strategyName(info.param));
                         });

TEST(Realize, EmulatedAndStandaloneOps) {
  // allin: BN, x * c and c - x as depthwise 1x1 convs; leaky ReLU and clip as LUTs; a ceil-mode
  // max pool; a nearest upsample; a global max pool; a mul of two activations.
  GraphBuilder b("emulated");
  ValueId x = b.input("x", {1, 4, 6, 6});
  ValueId bn = b.node(OpKind::BatchNormalization, "bn",
                      {x, b.weights("g", {4}, 1), b.weights("beta", {4}, 2),
                       b.constant("mean", {4}, {0.1F, -0.2F, 0.3F, 0.0F}),
                       b.constant("var", {4}, {1.0F, 2.0F, 0.5F, 1.5F})});
  ValueId mul = b.node(OpKind::Mul, "mulc", {bn, b.weights("k", {1, 4, 1, 1}, 3)});
  ValueId sub = b.node(OpKind::Sub, "subc", {b.constant("one", {}, {1.0F}), mul});
  ValueId leaky = b.node(OpKind::LeakyRelu, "leaky", {sub}, attrs({{"alpha", 0.2F}}));
  ValueId clip = b.node(OpKind::Clip, "clip", {leaky, b.constant("lo", {}, {-0.5F})});
  ValueId pooled = b.node(OpKind::MaxPool, "pool", {clip},
                          attrs({{"kernel_shape", std::vector<std::int64_t>{2, 2}},
                                 {"strides", std::vector<std::int64_t>{2, 2}},
                                 {"pads", std::vector<std::int64_t>{0, 0, 1, 1}},
                                 {"ceil_mode", std::int64_t{1}}}));
  ValueId up = b.node(OpKind::Resize, "up",
                      {pooled, ValueId{}, b.constant("scales", {4}, {1.0F, 1.0F, 2.0F, 2.0F})},
                      attrs({{"coordinate_transformation_mode", std::string("asymmetric")},
                             {"nearest_mode", std::string("floor")}}));
  ValueId gmp = b.node(OpKind::GlobalMaxPool, "gmp", {up});
  ValueId sq = b.node(OpKind::Mul, "square", {gmp, gmp});
  Graph g = b.finish({sq});
  QuantConfig config;
  config.strategy = DispatchStrategy::AllIn;
  std::vector<TensorMap> samples;
  for (unsigned i = 0; i < 8; ++i) {
    samples.push_back(TensorMap{{"x", testing::pattern({1, 4, 6, 6}, 40 + i)}});
  }
  QuantizedModel m = quantizeModel(g, samples, config);
  ASSERT_EQ(m.partition.segments.size(), 1U);
  const NpuSegment& s = m.npuSegments.at(0);
  EXPECT_EQ(opNamed<QConv>(s, "bn").params.groups, 4);
  EXPECT_EQ(opNamed<QConv>(s, "subc").weights.shape, (Shape{4, 1, 1, 1}));
  EXPECT_EQ(opNamed<QMaxPool>(s, "pool").params.pads, (std::array<std::int64_t, 4>{0, 0, 1, 1}));
  EXPECT_EQ(opNamed<QUpsample>(s, "up").factorH, 2);
  // The global max pool is a max pool whose window is the whole upsampled map.
  const Shape& upShape = m.graph.value(*m.graph.findValue("up")).shape;
  EXPECT_EQ(opNamed<QMaxPool>(s, "gmp").params.kernel,
            (std::array<std::int64_t, 2>{upShape[2], upShape[3]}));
  Interpreter fp32(m.graph);
  for (unsigned seed = 60; seed < 63; ++seed) {
    TensorMap sample{{"x", testing::pattern({1, 4, 6, 6}, seed)}};
    golden::FloatTensor expected = fp32.run(sample).at("square");
    golden::FloatTensor actual = runPartitionedModelGolden(m, sample).at("square");
    EXPECT_LT(relativeError(actual, expected), 0.03) << "seed " << seed;
  }
}

isa::NpuConfig hardware() {
  return isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs" / "npu-s.yaml");
}

TEST(RunPartitioned, NpuSegmentsOnTheSimulatorMatchGolden) {
  Graph g = makeSmallNet();
  QuantizedModel m = quantizeModel(g, smallNetSamples(8), QuantConfig{});
  isa::NpuConfig hw = hardware();
  int simulated = 0;
  NpuSegmentRunner simulator = [&](const NpuSegment& segment,
                                   const std::vector<golden::Int8Tensor>& inputs) {
    CompiledProgram compiled = generateProgram(segment.graph, hw, inputs);
    sim::SimOptions options;
    options.mode = sim::SimMode::Functional;
    sim::SimResult result = sim::simulate(compiled.program, options);
    if (result.fault) {
      throw *result.fault;
    }
    std::vector<golden::Int8Tensor> out;
    for (TensorId id : segment.graph.outputs) {
      golden::Int8Tensor t;
      t.shape = segment.graph.tensors[id].shape;
      std::vector<std::uint8_t> bytes =
          result.ddr.readRange(compiled.tensors[id].address, compiled.tensors[id].bytes);
      t.data.assign(bytes.begin(), bytes.end());
      out.push_back(std::move(t));
    }
    ++simulated;
    return out;
  };
  TensorMap sample = smallNetSamples(1, 77)[0];
  TensorMap onSimulator = runPartitionedModel(m, sample, simulator);
  TensorMap onGolden = runPartitionedModel(m, sample, goldenSegmentRunner());
  EXPECT_EQ(simulated, 2);
  EXPECT_EQ(onSimulator.at("probs").data, onGolden.at("probs").data);
}

TEST(RunPartitioned, BadInputs) {
  Graph g = makeSmallNet();
  QuantizedModel m = quantizeModel(g, smallNetSamples(2), QuantConfig{});
  EXPECT_EQ(errorOf([&] { runPartitionedModelGolden(m, {}); }),
            "smallnet.onnx: no tensor given for graph input 'x'");
  TensorMap wrong{{"x", testing::pattern({1, 3, 8, 8})}};
  EXPECT_EQ(errorOf([&] { runPartitionedModelGolden(m, wrong); }),
            "smallnet.onnx: input 'x' has shape [1, 3, 8, 8] (192 values), the graph expects "
            "[1, 3, 16, 16]");
  NpuSegmentRunner broken = [](const NpuSegment&, const std::vector<golden::Int8Tensor>&) {
    return std::vector<golden::Int8Tensor>{};
  };
  EXPECT_EQ(errorOf([&] { runPartitionedModel(m, smallNetSamples(1)[0], broken); }),
            "smallnet.onnx: NPU segment 0 returned 0 tensors, expected 1");
}

}  // namespace
}  // namespace npu::compiler
