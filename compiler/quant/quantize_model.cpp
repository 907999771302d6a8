// The quantization flow, as one readable list.
#include "npu/compiler/quant/quantize_model.h"

#include "npu/compiler/partition/capacity_check.h"
#include "npu/compiler/quant/realize.h"

namespace npu::compiler {

namespace {

QuantizedModel quantize(Graph graph, const std::vector<TensorMap>& samples,
                        const QuantConfig& config, const isa::NpuConfig* hardware) {
  QuantizedModel model{std::move(graph), {}, config, {}, {}};
  const Graph& g = model.graph;
  checkQuantConfig(config, g);                                                // names exist
  model.partition = partitionGraph(g, {config.strategy, config.hostLayers});  // NPU vs host
  if (hardware != nullptr) {
    checkNpuCapacity(g, model.partition, *hardware);  // before the expensive part
  }
  model.calibration = calibrate(g, model.partition, samples, config);  // ranges, alignment
  model.npuSegments = realizeSegments(g, model.partition, model.calibration, config);  // int8
  return model;
}

}  // namespace

QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config) {
  return quantize(std::move(graph), samples, config, nullptr);
}

QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config, const isa::NpuConfig& hardware) {
  return quantize(std::move(graph), samples, config, &hardware);
}

}  // namespace npu::compiler
