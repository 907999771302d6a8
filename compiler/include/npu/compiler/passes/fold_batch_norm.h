// The fold-batch-norm pass: foldBatchNorm().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Folds a BatchNormalization that is the only reader of a Conv's output into that Conv's weights
/// and bias: w' = w * s, b' = (b - mean) * s + beta with s = gamma / sqrt(var + epsilon).
/// Shared weights are copied, never edited in place.
void foldBatchNorm(Graph& graph);

}  // namespace npu::compiler
