// The fold-pad pass: foldPad().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Folds a constant-mode, zero-valued Pad of the spatial axes into the pads of the Convs that
/// read it (and into AveragePool with count_include_pad=1).
void foldPad(Graph& graph);

}  // namespace npu::compiler
