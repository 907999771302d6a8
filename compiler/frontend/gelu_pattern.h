// Private to the front ends: recognition of the erf GELU formula exporters emit.
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Replaces x * 0.5 * (1 + erf(x / sqrt(2))) (Div or Mul by 1/sqrt(2); the 0.5 applied first,
/// last or to the bracket) by one Gelu node. An Erf outside the pattern is left for the caller
/// to reject.
void fuseGeluPattern(Graph& graph);

}  // namespace npu::compiler
