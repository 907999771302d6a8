// The quantization flow in one call: partition, calibrate, realize.
#pragma once

#include <vector>

#include "npu/compiler/interp/interpreter.h"
#include "npu/compiler/quant/quantized_model.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

/// Quantizes an fp32 graph that has been through the front-end passes: checks the config against
/// the graph, partitions it (config.strategy, config.hostLayers), calibrates the NPU segments'
/// tensors on `samples` and realizes each NPU segment as a QuantizedGraph. The graph is kept in
/// the result (host segments run it).
QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config);

/// The same, for a known target: right after partitioning, before calibration, checks that the
/// NPU layers can fit `hardware` (checkNpuCapacity), so a model that cannot is refused at once.
QuantizedModel quantizeModel(Graph graph, const std::vector<TensorMap>& samples,
                             const QuantConfig& config, const isa::NpuConfig& hardware);

}  // namespace npu::compiler
