// The quantization config, calibration data loading, calibration of a partitioned graph and
// scale alignment, with the exact error text for bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "npu/compiler/frontend/import.h"
#include "npu/compiler/frontend/npy.h"
#include "npu/compiler/frontend/npz.h"
#include "npu/compiler/partition/partition.h"
#include "npu/compiler/quant/calibrate.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/compiler/quant/quant_params.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/scale_alignment.h"
#include "test_models.h"

namespace npu::compiler {
namespace {

using testing::errorOf;
using testing::makeSmallNet;
using testing::smallNetSamples;

namespace fs = std::filesystem;

// ---- config

TEST(QuantConfig, ParsesEverySetting) {
  QuantConfig c = parseQuantConfig(R"(
strategy: aggressive
rounding: double
histogram_bins: 1024
max_samples: 16
activations: {method: percentile, percentile: 99.9, symmetric: true}
weights: {method: mse, granularity: per_tensor}
power_of_two: false
host_layers: [add]
overrides:
  - layers: [conv1]
    activations: {method: kl}
    weights: {power_of_two: true}
  - op_types: [Concat, Add]
    activations: {method: mse, symmetric: false}
)",
                                   "q.yaml");
  EXPECT_EQ(c.strategy, DispatchStrategy::Aggressive);
  EXPECT_EQ(c.rounding, golden::Rounding::Double);
  EXPECT_EQ(c.histogramBins, 1024U);
  EXPECT_EQ(c.maxSamples, 16U);
  EXPECT_EQ(c.activations.method, ObserverMethod::Percentile);
  EXPECT_EQ(c.activations.percentile, 99.9);
  EXPECT_TRUE(c.activations.symmetric);
  EXPECT_EQ(c.weights.method, WeightMethod::Mse);
  EXPECT_FALSE(c.weights.perChannel);
  EXPECT_EQ(c.hostLayers, std::vector<std::string>{"add"});
  ASSERT_EQ(c.overrides.size(), 2U);
  EXPECT_EQ(c.overrides[1].opTypes, (std::vector<OpKind>{OpKind::Concat, OpKind::Add}));

  Graph g = makeSmallNet();
  checkQuantConfig(c, g);
  auto producer = [&](const std::string& name) -> const Node* {
    for (const Node& n : g.nodes()) {
      if (n.name == name) {
        return &n;
      }
    }
    return nullptr;
  };
  ActivationSettings conv1 = activationSettingsFor(c, g, producer("conv1"), "relu1");
  EXPECT_EQ(conv1.method, ObserverMethod::Entropy);
  EXPECT_TRUE(conv1.symmetric);
  ActivationSettings concat = activationSettingsFor(c, g, producer("concat"), "concat");
  EXPECT_EQ(concat.method, ObserverMethod::Mse);
  EXPECT_FALSE(concat.symmetric);
  EXPECT_EQ(activationSettingsFor(c, g, nullptr, "x").method, ObserverMethod::Percentile);
  EXPECT_TRUE(weightSettingsFor(c, g, *producer("conv1")).powerOfTwo);
  EXPECT_FALSE(weightSettingsFor(c, g, *producer("dw")).powerOfTwo);
  EXPECT_FALSE(weightSettingsFor(c, g, *producer("dw")).perChannel);
}

TEST(QuantConfig, BadInputNamesTheLine) {
  auto error = [](const std::string& text) {
    return errorOf([&] { parseQuantConfig(text, "q.yaml"); });
  };
  EXPECT_EQ(error("activations:\n  method: magic\n"),
            "q.yaml:2: unknown method 'magic' (methods: minmax, percentile, kl, mse)");
  EXPECT_EQ(error("weights: {method: kl}\n"),
            "q.yaml:1: unknown weight method 'kl' (methods: minmax, mse)");
  EXPECT_EQ(error("strategy: greedy\n"),
            "q.yaml:1: unknown strategy 'greedy' (strategies: conservative, aggressive, allin)");
  EXPECT_EQ(error("rounding: nearest\n"),
            "q.yaml:1: unknown rounding 'nearest' (single or double)");
  EXPECT_EQ(error("observer: kl\n"),
            "q.yaml:1: unknown key 'observer' in the config (keys: strategy, rounding, "
            "histogram_bins, max_samples, activations, weights, power_of_two, host_layers, "
            "overrides)");
  EXPECT_EQ(error("activations: {percentile: 20}\n"),
            "q.yaml:1: percentile must be in [50, 100], got 20");
  EXPECT_EQ(error("overrides:\n  - op_types: [Convolution]\n"),
            "q.yaml:2: unknown op type 'Convolution' (ONNX spelling, e.g. Conv)");
  EXPECT_EQ(error("overrides:\n  - activations: {method: mse}\n"),
            "q.yaml:2: an override needs layers or op_types");
  EXPECT_EQ(error("histogram_bins: 100\n"),
            "q.yaml:1: histogram_bins must be an even number in [128, 65536], got 100");
  EXPECT_EQ(error("activations: [1\n"),
            "q.yaml:2:1: YAML syntax error: end of sequence flow not found");

  Graph g = makeSmallNet();
  QuantConfig c = parseQuantConfig("host_layers: [add, conv9]\n", "q.yaml");
  EXPECT_EQ(errorOf([&] { checkQuantConfig(c, g); }),
            "q.yaml:1: host layer 'conv9' names no node of smallnet.onnx (a node's name or one "
            "of its outputs')");
  // A graph input is a value but no layer: named with the config file, not left to the
  // partitioner.
  c = parseQuantConfig("host_layers:\n  - add\n  - x\n", "q.yaml");
  EXPECT_EQ(errorOf([&] { checkQuantConfig(c, g); }),
            "q.yaml:3: host layer 'x' names no node of smallnet.onnx (a node's name or one of "
            "its outputs')");
  c = parseQuantConfig("overrides:\n  - layers: [conv1]\n  - layers: [nope]\n", "q.yaml");
  EXPECT_EQ(errorOf([&] { checkQuantConfig(c, g); }),
            "q.yaml:3: layer 'nope' is not in smallnet.onnx");
}

/// The first ```yaml block of docs/quant-config.md.
std::string docExample() {
  std::ifstream in(testing::sourcePath("docs/quant-config.md"));
  std::string line;
  std::string yaml;
  bool inside = false;
  while (std::getline(in, line)) {
    if (inside && line == "```") {
      return yaml;
    }
    if (inside) {
      yaml += line + "\n";
    }
    inside = inside || line == "```yaml";
  }
  ADD_FAILURE() << "docs/quant-config.md has no ```yaml block";
  return yaml;
}

TEST(QuantConfig, TheDocExampleQuantizesTheDigitsModel) {
  QuantConfig c = parseQuantConfig(docExample(), "docs/quant-config.md");
  EXPECT_EQ(c.strategy, DispatchStrategy::Conservative);
  EXPECT_EQ(c.rounding, golden::Rounding::Single);
  EXPECT_EQ(c.histogramBins, 2048U);
  EXPECT_EQ(c.maxSamples, 64U);
  EXPECT_EQ(c.activations.method, ObserverMethod::Percentile);
  EXPECT_EQ(c.activations.percentile, 99.99);
  EXPECT_EQ(c.weights.method, WeightMethod::MinMax);
  EXPECT_TRUE(c.weights.perChannel);
  EXPECT_EQ(c.hostLayers, std::vector<std::string>{"/net/gap/GlobalAveragePool"});
  ASSERT_EQ(c.overrides.size(), 4U);
  EXPECT_EQ(c.overrides[1].opTypes, (std::vector<OpKind>{OpKind::Concat, OpKind::AveragePool}));

  fs::path digits = testing::sourcePath("examples/digits");
  Graph g = importModel(digits / "model.onnx");
  runFrontEndPasses(g);
  checkQuantConfig(c, g);
  QuantizedModel m = quantizeModel(g, loadCalibrationSet(digits / "calib", g, 16), c);
  float inputScale = m.calibration.at("input").params.scale;
  EXPECT_EQ(inputScale, std::exp2(std::round(std::log2(inputScale))));
  EXPECT_EQ(m.calibration.at("/net/branch_silu/branch_silu.2/Mul_output_0").settings.method,
            ObserverMethod::Mse);
  EXPECT_EQ(m.calibration.at("/net/Concat_output_0").settings.method, ObserverMethod::MinMax);
  EXPECT_EQ(m.calibration.at("/net/conv3/conv3.2/Relu_output_0").settings.method,
            ObserverMethod::Percentile);
  std::size_t gap = 0;
  while (g.nodes()[gap].name != "/net/gap/GlobalAveragePool") {
    ++gap;
  }
  EXPECT_EQ(m.partition.device[gap], Device::Host);
  EXPECT_EQ(m.npuSegments.size(), 2U);
}

// ---- calibration data

class CalibrationData : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("npu_calib_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  void write(const std::string& name, Shape shape, std::vector<float> values) {
    writeNpy(m_dir / name, Tensor{std::move(shape), TensorData(std::move(values))});
  }
  std::string path(const std::string& name = "") const {
    return name.empty() ? m_dir.string() : (m_dir / name).string();
  }

  fs::path m_dir;
};

std::vector<float> ramp(std::size_t n, float offset = 0.0F) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = offset + static_cast<float>(i) / static_cast<float>(n);
  }
  return v;
}

TEST_F(CalibrationData, SamplesAndBatchesInNameOrder) {
  Graph g = makeSmallNet();
  write("b.npy", {2, 3, 16, 16}, ramp(2 * 768, 1.0F));
  write("a.npy", {1, 3, 16, 16}, ramp(768));
  std::vector<TensorMap> samples = loadCalibrationSet(m_dir, g);
  ASSERT_EQ(samples.size(), 3U);
  EXPECT_EQ(samples[0].at("x").data[0], 0.0F);
  EXPECT_EQ(samples[1].at("x").data[0], 1.0F);
  EXPECT_EQ(samples[2].at("x").shape, (Shape{1, 3, 16, 16}));
  EXPECT_EQ(loadCalibrationSet(m_dir, g, 2).size(), 2U);
  EXPECT_EQ(loadCalibrationSet(m_dir / "a.npy", g).size(), 1U);
}

TEST_F(CalibrationData, BadInputHasOneClearError) {
  Graph g = makeSmallNet();
  const std::string layout =
      "expected a .npy file, a folder of .npy files (read in name order) or a .npz with an array "
      "named 'x'; each array f32[1, 3, 16, 16] or [N, 3, 16, 16]";
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            "no calibration data: '" + path() + "' holds no .npy files; " + layout);
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir / "missing", g); }),
            "calibration data '" + path("missing") + "' does not exist; " + layout);
  write("shape.npy", {1, 1, 16, 16}, ramp(256));
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("shape.npy") +
                ": shape [1, 1, 16, 16] does not fit input 'x' f32[1, 3, 16, 16] (one sample of "
                "that shape, or a batch [N, 3, 16, 16])");
  fs::remove(m_dir / "shape.npy");
  writeNpy(m_dir / "int.npy", Tensor{{1, 3, 16, 16}, TensorData(std::vector<std::int64_t>(768))});
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("int.npy") + ": dtype i64, calibration data must be float32 or float64");
  fs::remove(m_dir / "int.npy");
  std::vector<float> values = ramp(2 * 768);
  values[768 + 17] = std::numeric_limits<float>::quiet_NaN();
  write("nan.npy", {2, 3, 16, 16}, values);
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("nan.npy") +
                ": sample 1 of input 'x' holds NaN at element 17 (calibration data must be "
                "finite)");
  values[768 + 17] = std::numeric_limits<float>::infinity();
  write("nan.npy", {2, 3, 16, 16}, values);
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("nan.npy") +
                ": sample 1 of input 'x' holds Inf at element 17 (calibration data must be "
                "finite)");
}

TEST_F(CalibrationData, TokenIdsComeFromIntegerFiles) {
  // An int64 graph input (token ids) takes int64 or int32 files; the ids travel as floats.
  Graph g("ids", "ids.onnx");
  Value ids;
  ids.name = "ids";
  ids.dtype = DType::Int64;
  ids.shape = {1, 3};
  ids.typed = true;
  g.addInput(g.addValue(std::move(ids)));
  writeNpy(m_dir / "a.npy",
           Tensor{{2, 3}, TensorData(std::vector<std::int64_t>{7, 0, 3, 1, 2, 9})});
  std::vector<TensorMap> samples = loadCalibrationSet(m_dir, g);
  ASSERT_EQ(samples.size(), 2U);
  EXPECT_EQ(samples[1].at("ids").data, (std::vector<float>{1.0F, 2.0F, 9.0F}));
  writeNpy(m_dir / "a.npy", Tensor{{1, 3}, TensorData(std::vector<std::int64_t>{1, 1 << 25, 2})});
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("a.npy") + ": index 33554432 of input 'ids' is outside +-2^24");
  write("a.npy", {1, 3}, {1.0F, 2.0F, 3.0F});
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            path("a.npy") + ": dtype f32, input 'ids' takes int64 or int32 data");
}

// ---- several inputs: one .npz, or one folder of .npy files per input

/// tests/data/multi_input/two_inputs.yaml: inputs x [1, 2, 3, 3] and g [1, 4, 1, 1].
Graph twoInputs() {
  return importModel(fs::path(NPU_SOURCE_DIR) / "tests/data/multi_input/two_inputs.yaml");
}

fs::path npzFixture(const std::string& name) {
  return fs::path(NPU_SOURCE_DIR) / "tests/data/npz" / name;
}

/// The layout of two_inputs.yaml's data that the errors about a .npz name.
const std::string kNpzLayout =
    "expected one array per graph input, named by it: x f32[1, 2, 3, 3] or [N, 2, 3, 3]; g "
    "f32[1, 4, 1, 1] or [N, 4, 1, 1]";

/// Sample k of make_npz_fixtures.py's two_inputs(): x holds 18k..18k+17 over 4, g k + [1, -2,
/// 0.5, 4].
void expectSample(const TensorMap& sample, std::size_t k) {
  ASSERT_EQ(sample.size(), 2U);
  const golden::FloatTensor& x = sample.at("x");
  EXPECT_EQ(x.shape, (Shape{1, 2, 3, 3}));
  ASSERT_EQ(x.data.size(), 18U);
  EXPECT_EQ(x.data[0], static_cast<float>(18 * k) / 4);
  EXPECT_EQ(x.data[17], static_cast<float>(18 * k + 17) / 4);
  const golden::FloatTensor& g = sample.at("g");
  EXPECT_EQ(g.shape, (Shape{1, 4, 1, 1}));
  EXPECT_EQ(g.data,
            (std::vector<float>{1.0F + static_cast<float>(k), -2.0F + static_cast<float>(k),
                                0.5F + static_cast<float>(k), 4.0F + static_cast<float>(k)}));
}

TEST(CalibrationNpz, StoredAndCompressedArchivesGiveTheSameSamples) {
  Graph g = twoInputs();
  for (const char* file : {"stored.npz", "compressed.npz"}) {
    std::vector<TensorMap> samples = loadCalibrationSet(npzFixture(file), g);
    ASSERT_EQ(samples.size(), 3U) << file;
    for (std::size_t k = 0; k < 3; ++k) {
      expectSample(samples[k], k);
    }
    EXPECT_EQ(loadCalibrationSet(npzFixture(file), g, 2).size(), 2U);
  }
  // An array of the input's own shape is one sample.
  std::vector<TensorMap> one = loadCalibrationSet(npzFixture("one-sample.npz"), g);
  ASSERT_EQ(one.size(), 1U);
  expectSample(one[0], 0);
}

TEST(CalibrationNpz, DataThatDoesNotFitTheGraphHasOneClearError) {
  Graph g = twoInputs();
  auto error = [&](const std::string& file) {
    return errorOf([&] { loadCalibrationSet(npzFixture(file), g); });
  };
  auto named = [](const std::string& file) { return npzFixture(file).string(); };
  EXPECT_EQ(error("fit-missing-array.npz"), "calibration data '" + named("fit-missing-array.npz") +
                                                "' has no array 'g'; " + kNpzLayout);
  EXPECT_EQ(error("fit-extra-array.npz"), "calibration data '" + named("fit-extra-array.npz") +
                                              "' holds array 'mask', which is no graph input; " +
                                              kNpzLayout);
  EXPECT_EQ(error("fit-int-dtype.npz"),
            named("fit-int-dtype.npz") +
                ": array 'x': dtype i64, calibration data must be float32 or float64");
  EXPECT_EQ(error("fit-bad-shape.npz"),
            named("fit-bad-shape.npz") +
                ": array 'x': shape [3, 2, 9] does not fit input 'x' f32[1, 2, 3, 3] (one sample "
                "of that shape, or a batch [N, 2, 3, 3])");
  EXPECT_EQ(error("fit-sample-counts.npz"),
            "calibration data '" + named("fit-sample-counts.npz") +
                "': array 'x' has 3 samples, array 'g' has 2 samples; every graph input needs the "
                "same number of samples (sample k takes the k-th of each)");
  EXPECT_EQ(error("fit-nan.npz"), named("fit-nan.npz") +
                                      ": array 'x': sample 1 of input 'x' holds NaN at element 7 "
                                      "(calibration data must be finite)");
  EXPECT_EQ(error("bad-crc.npz"), named("bad-crc.npz") + ": array 'x': damaged data: CRC error");
  // A single-input model reads its array by name too.
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(npzFixture("stored.npz"), makeSmallNet()); }),
            "calibration data '" + named("stored.npz") +
                "' holds array 'g', which is no graph input; expected one array per graph "
                "input, named by it: x f32[1, 3, 16, 16] or [N, 3, 16, 16]");
}

TEST_F(CalibrationData, FoldersPerInputGiveWhatTheNpzGives) {
  Graph g = twoInputs();
  std::vector<NpzArray> arrays = readNpz(npzFixture("compressed.npz"));
  for (const NpzArray& array : arrays) {
    fs::create_directories(m_dir / array.name);
    writeNpy(m_dir / array.name / "batch.npy", array.tensor);
  }
  std::vector<TensorMap> fromFolders = loadCalibrationSet(m_dir, g);
  std::vector<TensorMap> fromNpz = loadCalibrationSet(npzFixture("compressed.npz"), g);
  ASSERT_EQ(fromFolders.size(), 3U);
  for (std::size_t k = 0; k < 3; ++k) {
    expectSample(fromFolders[k], k);
    for (const char* name : {"x", "g"}) {
      EXPECT_EQ(fromFolders[k].at(name).data, fromNpz[k].at(name).data);
    }
  }
}

TEST_F(CalibrationData, FolderLayoutErrorsSayTheLayout) {
  Graph g = twoInputs();
  auto layout = [&](const fs::path& root) {
    return "expected one folder of .npy files per graph input (" + (root / "x").string() + "/, " +
           (root / "g").string() +
           "/) or a .npz with one array per graph input, named by it (x f32[1, 2, 3, 3] or [N, "
           "2, 3, 3]; g f32[1, 4, 1, 1] or [N, 4, 1, 1])";
  };
  EXPECT_EQ(
      errorOf([&] { loadCalibrationSet(m_dir / "missing", g); }),
      "calibration data '" + path("missing") + "' does not exist; " + layout(m_dir / "missing"));
  write("x.npy", {1, 2, 3, 3}, ramp(18));
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir / "x.npy", g); }),
            "calibration data '" + path("x.npy") + "' is a file, but the graph has 2 inputs; " +
                layout(m_dir / "x.npy"));
  fs::create_directories(m_dir / "x");
  fs::rename(m_dir / "x.npy", m_dir / "x" / "a.npy");
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            "calibration data '" + path() + "' has no folder 'g' for input 'g'; " + layout(m_dir));
  fs::create_directories(m_dir / "g");
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            "no calibration data: '" + path("g") + "' holds no .npy files; " + layout(m_dir));
  write("g/a.npy", {2, 4, 1, 1}, ramp(8));
  EXPECT_EQ(errorOf([&] { loadCalibrationSet(m_dir, g); }),
            "calibration data '" + path() + "': input 'x' (" + path("x") +
                ") has 1 sample, input 'g' (" + path("g") +
                ") has 2 samples; every graph input needs the same number of samples (sample k "
                "takes the k-th of each)");
  write("x/b.npy", {1, 2, 3, 3}, ramp(18, 1.0F));
  EXPECT_EQ(loadCalibrationSet(m_dir, g).size(), 2U);
}

// ---- calibration

TEST(Calibrate, ObservesEveryNpuTensorAndAlignsByteMoves) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g, {DispatchStrategy::AllIn, {}});
  CalibrationResult c = calibrate(g, p, smallNetSamples(4), QuantConfig{});
  EXPECT_EQ(c.samples, 4U);
  // Every NPU input and output and the sigmoid epilogue's input; the NPU softmax's output at
  // NORM's fixed 1/256 and -128.
  for (const char* name :
       {"x", "relu1", "maxpool", "relu6", "pw", "relu_add", "sigmoid", "sigmoid#preact", "relu_b",
        "concat", "scale", "avgpool", "tanh", "gap", "fc.conv", "fc", "probs"}) {
    EXPECT_TRUE(c.tensors.count(name) == 1) << name;
  }
  EXPECT_FLOAT_EQ(c.at("probs").params.scale, 1.0F / 256.0F);
  EXPECT_EQ(c.at("probs").params.zeroPoint, -128);
  // Concat inputs and output share, max pool in and out share, average pool chains on.
  std::vector<std::vector<std::string>> groups = alignmentGroups(g, p);
  ASSERT_EQ(groups.size(), 5U);
  EXPECT_EQ(groups[0], (std::vector<std::string>{"relu1", "maxpool"}));
  EXPECT_EQ(groups[1], (std::vector<std::string>{"sigmoid", "relu_b", "concat"}));
  EXPECT_EQ(groups[2], (std::vector<std::string>{"scale", "avgpool"}));
  EXPECT_EQ(groups[3], (std::vector<std::string>{"tanh", "gap"}));
  EXPECT_EQ(groups[4], (std::vector<std::string>{"fc", "fc.conv"}));  // the aliasing reshape
  const TensorCalibration& sigmoid = c.at("sigmoid");
  const TensorCalibration& reluB = c.at("relu_b");
  EXPECT_EQ(sigmoid.params.scale, reluB.params.scale);
  EXPECT_EQ(sigmoid.params.zeroPoint, reluB.params.zeroPoint);
  EXPECT_EQ(sigmoid.group, reluB.group);
  // The aligned range is the union; the sigmoid's own range is inside [0, 1].
  EXPECT_GE(sigmoid.range.lo, 0.0F);
  EXPECT_LE(sigmoid.range.hi, 1.0F);
  EXPECT_EQ(sigmoid.alignedRange.hi, std::max(sigmoid.range.hi, reluB.range.hi));
  EXPECT_EQ(c.at("maxpool").params.zeroPoint, -128);  // after a ReLU
  EXPECT_EQ(errorOf([&] { c.at("nope"); }), "tensor 'nope' was not calibrated");
}

TEST(Calibrate, MethodsAndOverridesPerTensor) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g);
  QuantConfig config = parseQuantConfig(R"(
activations: {method: kl}
overrides:
  - layers: [pw]
    activations: {method: percentile, percentile: 99, symmetric: true}
  - layers: [x]
    activations: {method: minmax, power_of_two: true}
)",
                                        "q.yaml");
  CalibrationResult c = calibrate(g, p, smallNetSamples(3), config);
  EXPECT_EQ(c.at("relu6").settings.method, ObserverMethod::Entropy);
  const TensorCalibration& pw = c.at("pw");
  EXPECT_EQ(pw.settings.method, ObserverMethod::Percentile);
  EXPECT_EQ(pw.params.zeroPoint, 0);
  EXPECT_EQ(pw.range.lo, -pw.range.hi);
  EXPECT_LE(pw.range.hi, std::max(-pw.min, pw.max));
  const TensorCalibration& x = c.at("x");
  EXPECT_EQ(x.range, (Range{x.min, x.max}));
  EXPECT_EQ(x.params.scale, powerOfTwoAtLeast((x.max - x.min) / 255.0F));
}

TEST(Calibrate, NoSamplesOrNonFiniteValues) {
  Graph g = makeSmallNet();
  Partition p = partitionGraph(g);
  EXPECT_EQ(errorOf([&] { calibrate(g, p, {}, QuantConfig{}); }),
            "smallnet.onnx: no calibration data (0 samples)");
  std::vector<TensorMap> samples = smallNetSamples(2);
  samples[1].at("x").data[5] = -std::numeric_limits<float>::infinity();
  EXPECT_EQ(errorOf([&] { calibrate(g, p, samples, QuantConfig{}); }),
            "smallnet.onnx calibration data: sample 1 of input 'x' holds Inf at element 5 "
            "(calibration data must be finite)");
  // Finite inputs that overflow inside the model are caught at the first tensor holding them.
  samples = smallNetSamples(2);
  for (float& v : samples[1].at("x").data) {
    v *= 3e38F;
  }
  // Which element overflows first depends on the conv's summation order (oneDNN's, which varies
  // with the instruction set); the tensor and the sample do not.
  const std::string message = errorOf([&] { calibrate(g, p, samples, QuantConfig{}); });
  const std::string prefix = "smallnet.onnx: tensor 'relu1' holds Inf at element ";
  EXPECT_EQ(message.substr(0, prefix.size()), prefix) << message;
  EXPECT_TRUE(message.ends_with(" for calibration sample 1")) << message;
}

}  // namespace
}  // namespace npu::compiler
