// The reduce-to-global-pool pass: reduceToGlobalPool().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites ReduceMean and ReduceMax over exactly the spatial axes of an NCHW tensor as the
/// GlobalAveragePool / GlobalMaxPool they are (followed by a Flatten when keepdims is 0), so a
/// global pool exported as a reduction (MNASNet, ShuffleNetV2) runs on the NPU.
void reduceToGlobalPool(Graph& graph);

}  // namespace npu::compiler
