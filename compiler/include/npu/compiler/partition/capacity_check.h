// The capacity check run right after partitioning, before the expensive calibration.
#pragma once

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

/// Fails, naming the model, the largest NPU layer and the hardware, when the int8 weights and
/// int32 biases of the NPU layers alone exceed the DDR of `hardware`. Codegen places every
/// constant for the whole run (activations share memory by liveness), so this is a lower bound
/// of the plan: a model it refuses could never fit, and it refuses before calibration instead of
/// after it.
/// Likewise (kind unsupported) when those constants plus the int8 input and output activations
/// of the NPU layer with the most cannot fit together.
void checkNpuCapacity(const Graph& graph, const Partition& partition,
                      const isa::NpuConfig& hardware);

}  // namespace npu::compiler
