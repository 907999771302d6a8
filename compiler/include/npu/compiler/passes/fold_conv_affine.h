// The fold-conv-affine pass: foldConvAffine().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Folds a Mul, Div, Add or Sub by a per-channel (shape [1, C, 1, 1], [C, 1, 1] or one element)
/// constant that is the only reader of a Conv's output into that Conv's weights and bias (the
/// Conv is the Mul's or Add's either operand, the Div's or Sub's first), and a per-channel Mul or
/// Add whose only reader is a Conv that pads nothing into that Conv, repeatedly, so the bias adds,
/// layer scale and LayerNorm affine around ConvNeXt's 1x1 convs cost nothing. Weights are copied,
/// never edited in place.
void foldConvAffine(Graph& graph);

}  // namespace npu::compiler
