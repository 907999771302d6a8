// The gemm-to-conv pass: convertGemmToConv().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites Gemm and MatMul with a rank-2 activation and constant weights as Reshape -> 1x1 Conv
/// -> Reshape, folding alpha, beta and transB into the weights and bias, so the NPU runs fully
/// connected layers on the MAC array. Other forms (batched MatMul, transA, non-constant B or a
/// C that is not per output column) are left alone.
void convertGemmToConv(Graph& graph);

}  // namespace npu::compiler
