// The quantization flow in one call: the compiler driver stopped after quantization.
#pragma once

#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"

namespace npu::compiler {

/// Quantizes an fp32 graph that has been through the front-end passes: the driver's
/// compileOptimizedGraph without a target (driver/compile.h): checks the config against the
/// graph, partitions it (config.strategy, config.hostLayers), calibrates the NPU segments'
/// tensors on `samples` and realizes each NPU segment as a QuantizedGraph. The graph is kept in
/// the result (host segments run it).
QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config);

}  // namespace npu::compiler
