// The clamp-attention-masks pass: clampAttentionMasks().
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Bounds every additive attention mask at kMaskFloor (ir/masked_scores.h): an operand of an Add
/// whose result a Softmax reads, computed from the graph's integer inputs alone (an attention
/// mask turned into 0 and the float minimum, as exporters write it), becomes Max(mask,
/// kMaskFloor). exp(score + kMaskFloor) is 0 in fp32 as exp(score + float minimum) is, so the
/// fp32 results are the same; in int8 the add that applies the mask keeps the scores' precision
/// (a float-minimum operand would need a scale of 10^36), and the masked scores saturate at the
/// low end of the softmax input's range, whose exp table entry is 0 (docs/numerics.md "Masked
/// scores").
void clampAttentionMasks(Graph& graph);

}  // namespace npu::compiler
