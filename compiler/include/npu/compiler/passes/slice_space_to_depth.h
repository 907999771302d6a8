// The slice-space-to-depth pass: sliceSpaceToDepth().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a SpaceToDepth of blocksize b as the channel Concat of its b * b block-strided
/// Slices (block row by, block column bx: rows from by and columns from bx, every b), and merges
/// a Slice whose only reader is a Slice over other axes into one Slice, so a YOLOv5 Focus stem
/// (`x[..., ::2, ::2]` and its three siblings, concatenated) or a SpaceToDepth runs on the NPU as
/// strided copies.
void sliceSpaceToDepth(Graph& graph);

}  // namespace npu::compiler
