// Private to the front ends: recognition of the GELU formulas (erf and tanh) exporters emit.
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Replaces x * 0.5 * (1 + erf(x / sqrt(2))) (Div or Mul by 1/sqrt(2); the 0.5 applied first,
/// last or to the bracket) by one Gelu node, and GPT-2's gelu_new,
/// x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * Pow(x, 3)))), by one Gelu with
/// approximate="tanh". An Erf outside the pattern is left for the caller to reject; a Tanh
/// outside it stays a Tanh.
void fuseGeluPattern(Graph& graph);

}  // namespace npu::compiler
