// The simplify-reshapes pass: simplifyReshapes().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Removes Identity and ops that leave their input unchanged (a reshape to the same shape, an
/// identity Transpose, a zero Pad, a one-input Concat), and merges chains of Flatten, Reshape,
/// Squeeze and Unsqueeze into one Reshape, and Transpose pairs into one Transpose.
void simplifyReshapes(Graph& graph);

}  // namespace npu::compiler
