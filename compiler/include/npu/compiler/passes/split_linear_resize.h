// The split-linear-resize pass: splitLinearResize().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a linear (bilinear) Resize of an [N, C, H, W] f32 tensor that changes both H and W
/// as two Resizes, rows first, then columns. The fp32 result is the same (linear resize is
/// separable and computed axis after axis), and each part is a one-axis resize the NPU runs as
/// two-tap depthwise convolutions (docs/numerics.md, "Linear resize").
void splitLinearResize(Graph& graph);

}  // namespace npu::compiler
