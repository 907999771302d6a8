// The quantization flow, as one readable list.
#include "npu/compiler/quant/quantize_model.h"

#include "npu/compiler/quant/realize.h"

namespace npu::compiler {

QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config) {
  QuantizedModel model{std::move(graph), {}, config, {}, {}};
  const Graph& g = model.graph;
  checkQuantConfig(config, g);                                                // names exist
  model.partition = partitionGraph(g, {config.strategy, config.hostLayers});  // NPU vs host
  model.calibration = calibrate(g, model.partition, samples, config);         // ranges, alignment
  model.npuSegments = realizeSegments(g, model.partition, model.calibration, config);  // int8
  return model;
}

}  // namespace npu::compiler
