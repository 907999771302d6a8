// The fuse-channel-layernorm pass: fuseChannelLayerNorm().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a LayerNorm over axis 1 spelled out as ReduceMean -> Sub -> Mul (or Pow 2) ->
/// ReduceMean -> Add epsilon -> Sqrt -> Div (how an opset-13 export and sink-nhwc-transposes
/// write a channels-last LayerNorm) as one ChannelLayerNorm node, which the NPU runs as NORM
/// rows. The intermediates must have no other reader; a scale and bias after the Div stay as
/// they are (fold-conv-affine folds them into a following conv).
void fuseChannelLayerNorm(Graph& graph);

}  // namespace npu::compiler
