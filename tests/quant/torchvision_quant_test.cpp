// ResNet-18 and MobileNetV2 (torchvision, random weights, re-estimated BN statistics) quantized
// with every observer and with power-of-two scales: the golden int8 run stays close to fp32,
// never NaN. The small variant of bench/quant_accuracy.cpp (one image calibrates and evaluates);
// the figures of docs/performance.md come from the bench.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "npu/compiler/frontend/onnx_import.h"
#include "npu/compiler/passes/pipeline.h"
#include "npu/compiler/quant/accuracy_report.h"
#include "npu/compiler/quant/quantize_model.h"
#include "npu/compiler/quant/run_partitioned.h"
#include "test_support.h"

namespace npu::compiler {
namespace {

struct Case {
  const char* network;
  /// The least final-output cosine expected of every variant.
  double cosine;
};

/// ctest names carry the printed parameter: the network, not the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.network;
}

class TorchvisionQuantization : public ::testing::TestWithParam<Case> {};

TEST_P(TorchvisionQuantization, EveryObserverAndPowerOfTwoStayCloseToFp32) {
  std::filesystem::path dir(NPU_TEST_MODEL_DIR);
  const Case& c = GetParam();
  Graph graph = importOnnx(dir / (std::string(c.network) + ".onnx"));
  runFrontEndPasses(graph);
  TensorMap x{{"input", testing::loadFloatNpy(dir / (std::string(c.network) + ".input.npy"))}};
  golden::FloatTensor reference = interpret(graph, x).at("output");
  struct Variant {
    ObserverMethod method;
    bool powerOfTwo;
  };
  for (Variant v :
       {Variant{ObserverMethod::MinMax, false}, Variant{ObserverMethod::Percentile, false},
        Variant{ObserverMethod::Entropy, false}, Variant{ObserverMethod::Mse, false},
        Variant{ObserverMethod::Mse, true}}) {
    QuantConfig config;
    config.activations.method = v.method;
    config.activations.powerOfTwo = v.powerOfTwo;
    config.weights.powerOfTwo = v.powerOfTwo;
    QuantizedModel model = quantizeModel(graph, {x}, config);
    golden::FloatTensor y = runPartitionedModel(model, x, goldenSegmentRunner()).at("output");
    AgreementAccumulator agreement;
    agreement.add(reference.data, y.data);
    double cosine = agreement.result().cosine;
    std::string name = fmt::format("{}{}", observerName(v.method), v.powerOfTwo ? "_pow2" : "");
    EXPECT_FALSE(std::isnan(cosine)) << name;
    EXPECT_GT(cosine, c.cosine) << name;
    RecordProperty("cosine_" + name, std::to_string(cosine));
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, TorchvisionQuantization,
                         ::testing::Values(Case{"resnet18", 0.998}, Case{"mobilenet_v2", 0.95}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.network);
                         });

}  // namespace
}  // namespace npu::compiler
