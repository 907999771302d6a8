// The fold-constants pass: foldConstants().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Evaluates every node whose inputs are all constants (or, for Shape, whose input shape is
/// static) and turns its outputs into constants: the Shape/Gather/Unsqueeze/Concat chains
/// exporters emit for reshapes, pad computations, weight transposes.
void foldConstants(Graph& graph);

}  // namespace npu::compiler
