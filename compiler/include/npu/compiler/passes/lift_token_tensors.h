// The lift-token-tensors pass: liftTokenTensors().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Computes transformer token tensors as images whose NHWC bytes are their row-major bytes, so
/// the NPU's image ops run them. A value v of shape [d0, ..., dL] gets the twin
/// [1, dL, d0 * ... * d(L-1), 1]: each row of v's last axis is one pixel of dL channels.
///
/// Regions start where a token tensor is made from an image (the Reshape [1, C, H*W] and
/// Transpose [0, 2, 1] of a patch embedding) or read from outside (a rank-2 or rank-3 activation,
/// e.g. an embedding Gather on the host). They run through element-wise ops (constants moved to
/// the twin's layout), reductions, Softmax and LayerNormalization over the last axis (over the
/// twin's channels), MatMul and Gemm by constant weights (1x1 Convs), reshapes and transposes
/// that keep the bytes in order (no node at all), Concat, Slice and Gather along the tokens or
/// the channels, and MatMuls of two activations: the Reshape/Transpose chains that split the
/// heads before them and merge them after become the strides of one HeadMatMul. Any other reader
/// of a region value gets the value rebuilt from its twin by a Transpose and a Reshape, so the
/// rewrite is always correct.
void liftTokenTensors(Graph& graph);

}  // namespace npu::compiler
