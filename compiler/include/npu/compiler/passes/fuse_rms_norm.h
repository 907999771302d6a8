// The fuse-rms-norm pass: fuseRmsNorm().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites an RMSNorm spelled out as exporters write it,
///   Pow(x, 2) or Mul(x, x) -> ReduceMean(one axis, keepdims) -> Add epsilon -> Sqrt, then
///   Div(x, .), or Mul(x, Reciprocal(.)), or Mul(x, Div(1, .)) (torch.rsqrt),
/// as one node: over the last axis an RMSNormalization (its weight, a constant Mul along that
/// axis after it, becomes the node's scale), which lift-token-tensors puts on the NPU for token
/// tensors; over axis 1 of a tensor of rank 3 or more a ChannelRmsNorm (what the QDQ export writes
/// back). The intermediates must have no other reader; x may have any. An x that is y - mean(y)
/// over the same axis is left alone: that chain is a LayerNorm's (fuse-channel-layernorm).
void fuseRmsNorm(Graph& graph);

}  // namespace npu::compiler
