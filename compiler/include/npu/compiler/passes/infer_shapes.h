// The infer-shapes pass: inferShapes().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Sets every value's dtype and shape by the op rules (ONNX semantics), propagating index
/// tensors through Shape/Gather/Concat chains so reshape targets are known. Errors name the file,
/// node and op of the first inconsistency.
void inferShapes(Graph& graph);

}  // namespace npu::compiler
