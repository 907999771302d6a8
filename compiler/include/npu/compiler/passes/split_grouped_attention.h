// The split-grouped-attention pass: splitGroupedAttention().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites a MatMul of attention heads A [1, H, M, K] by K/V heads repeated for grouped-query
/// or multi-query attention, B = repeat(KV) with KV [1, G, X, Y] and head h of B being K/V head
/// h / (H / G) (as Hugging Face's repeat_kv writes it with Unsqueeze/Expand/Reshape, or
/// repeat_interleave; any chain of Reshape, Unsqueeze, Expand, Tile, Concat of one value and
/// Transpose whose element map shows that, B as KV or with its last two axes swapped), into one
/// MatMul per K/V head g: MatMul(A[:, gH/G : (g+1)H/G], KV[:, g : g+1] (transposed)), the results
/// concatenated over the heads. The repeat is never materialised: lift-token-tensors makes each
/// group's MatMul a HeadMatMul whose B is one K/V head for all of the group's heads (head stride
/// 0). The fp32 results are identical.
void splitGroupedAttention(Graph& graph);

}  // namespace npu::compiler
