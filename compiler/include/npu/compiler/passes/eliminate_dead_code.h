// The eliminate-dead-code pass: eliminateDeadCode().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Removes nodes whose outputs nothing reads and values nothing refers to.
void eliminateDeadCode(Graph& graph);

}  // namespace npu::compiler
