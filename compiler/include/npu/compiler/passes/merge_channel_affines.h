// The merge-channel-affines pass: mergeChannelAffines().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Merges a Mul of an activation [1, C, H, W] by a per-channel (or scalar) constant whose only
/// reader adds a per-channel (or scalar) constant into one BatchNormalization with mean 0,
/// variance 1 and epsilon 0, which computes x * scale + bias exactly. The NPU runs it as one
/// depthwise 1x1 pass instead of two: what is left of a LayerNorm's affine when no conv follows
/// to fold it into (a BERT's post-norm LayerNorms, a ViT's final one).
void mergeChannelAffines(Graph& graph);

}  // namespace npu::compiler
