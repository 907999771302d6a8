// The bundled digits model (examples/digits, scripts/make_digits_model.py): quantized with the
// bundled calibration set and run on the golden int8 reference, its top-1 accuracy on the test
// split is within 0.5 points of fp32 and not below PyTorch FX int8's (reference.yaml).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "npu/compiler/frontend/import.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/quant/calibration_data.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

namespace fs = std::filesystem;
using testing::sourcePath;

/// The number after "<key>: " in reference.yaml.
double referenceValue(const fs::path& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      return std::stod(line.substr(key.size() + 1));
    }
  }
  ADD_FAILURE() << file << " has no " << key;
  return 0.0;
}

std::size_t argMax(const golden::FloatTensor& t) {
  return static_cast<std::size_t>(std::max_element(t.data.begin(), t.data.end()) - t.data.begin());
}

TEST(Digits, Int8Top1WithinHalfAPointOfFp32AndNotBelowPyTorchFx) {
  fs::path dir = sourcePath("examples/digits");
  double fp32Reference = referenceValue(dir / "reference.yaml", "fp32_top1");
  double pytorchFx = referenceValue(dir / "reference.yaml", "pytorch_fx_int8_top1");

  Graph graph = importModel(dir / "model.onnx");
  runFrontEndPasses(graph);
  std::vector<TensorMap> calibration = loadCalibrationSet(dir / "calib", graph);
  ASSERT_EQ(calibration.size(), 128U);
  QuantizedModel model = quantizeModel(graph, calibration, QuantConfig{});

  Tensor images = readNpy(dir / "test_inputs.npy");
  Tensor labels = readNpy(dir / "test_labels.npy");
  ASSERT_EQ(images.shape, (Shape{450, 1, 8, 8}));
  std::span<const float> pixels = images.data.floats();
  std::span<const std::int64_t> expected = labels.data.int64s();
  Interpreter interpreter(model.graph);
  NpuSegmentRunner golden = goldenSegmentRunner();
  std::size_t fp32Correct = 0;
  std::size_t int8Correct = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    golden::FloatTensor x{{1, 1, 8, 8}, {pixels.begin() + i * 64, pixels.begin() + (i + 1) * 64}};
    TensorMap inputs{{"input", x}};
    fp32Correct +=
        argMax(interpreter.run(inputs).at("probs")) == static_cast<std::size_t>(expected[i]);
    int8Correct += argMax(runPartitionedModel(model, inputs, golden).at("probs")) ==
                   static_cast<std::size_t>(expected[i]);
  }
  double n = static_cast<double>(expected.size());
  double fp32 = 100.0 * static_cast<double>(fp32Correct) / n;
  double int8 = 100.0 * static_cast<double>(int8Correct) / n;
  RecordProperty("fp32_top1", std::to_string(fp32));
  RecordProperty("int8_top1", std::to_string(int8));
  // Our fp32 interpreter reproduces PyTorch's accuracy (a flipped image at most).
  EXPECT_NEAR(fp32, fp32Reference, 100.0 / n + 1e-9);
  EXPECT_GE(int8, fp32 - 0.5) << "int8 " << int8 << "% vs fp32 " << fp32 << "%";
  EXPECT_GE(int8, pytorchFx) << "int8 " << int8 << "% vs PyTorch FX int8 " << pytorchFx << "%";
}

}  // namespace
}  // namespace npu::compiler
