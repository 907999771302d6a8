// The split-to-slices pass: splitToSlices().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a Split of an f32 tensor as one Slice per output (constant starts, ends and axis),
/// so each part is a single-output op the dispatcher can place: a channel split (C2f/C3 blocks,
/// ShuffleNet units) becomes channel slices the NPU copies by DMA addressing.
void splitToSlices(Graph& graph);

}  // namespace npu::compiler
