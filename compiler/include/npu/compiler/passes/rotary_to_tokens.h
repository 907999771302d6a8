// The rotary-to-tokens pass: rotaryToTokens().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a rotary embedding applied to attention heads,
///   Y = X * C + R(X) * S,  X = Transpose(Reshape(P, [1, T, H, D]), [0, 2, 1, 3]),
/// where R rotates each head's D values (a signed permutation of the last axis, the same for
/// every head and token, computed from X by Slice/Neg/Concat/Reshape/... as exporters write
/// rotate-half and interleaved pairs) and C, S hold one row of D per token ([1, 1, T, D] after
/// broadcasting: the same for every head), into the same computation on the token tensor P
/// [1, T, H * D] before the head split:
///   Y = split(P * C' + R'(P) * S'),
/// C' and S' the tables repeated for every head (S' carrying R's signs), R'(P) the runs of R
/// sliced from P and concatenated (or P times a signed permutation matrix when R has more than
/// four runs per head). lift-token-tensors then computes all of it on P's twin, and the head
/// split after it is the strides of a HeadMatMul. The fp32 results are identical.
void rotaryToTokens(Graph& graph);

}  // namespace npu::compiler
