// The sink-nhwc-transposes pass: sinkNhwcTransposes().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Computes channels-last regions on the NCHW tensor they were transposed from. A region starts
/// at a Transpose with perm [0, 2, 3, 1] of a rank-4 tensor (ConvNeXt's and LayerNorm2d's
/// `permute(0, 2, 3, 1)`) and runs through element-wise ops (their constant operands moved to
/// the channel axis), reductions over the last axis (moved to axis 1), LayerNormalization over
/// the last axis (expanded into reductions over axis 1) and MatMuls by a constant [K, N] matrix
/// (as 1x1 Convs, so their MACs can run on the NPU). A Transpose with perm [0, 3, 1, 2] back
/// becomes an Identity; any other reader of a region value gets the value transposed from its
/// NCHW twin.
void sinkNhwcTransposes(Graph& graph);

}  // namespace npu::compiler
