// Additive attention masks in int8 (docs/numerics.md "Masked scores"): which values are masks,
// and the numbers calibration quantizes them and the masked scores with.
#pragma once

#include <vector>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Per value: computed from the graph's integer inputs alone (token ids, an attention mask,
/// position ids), through any ops and constants but a lookup of float rows (an embedding's
/// Gather makes features): a mask, positions, a computed rotary table. Such values
/// are the host's work (the partition keeps their nodes there) and, added to scores, masks.
std::vector<bool> integerDerivedValues(const Graph& graph);

/// The low end of an additive mask's int8 range (exporters write the float minimum, which
/// saturates there): far below any score, near enough that the int8 add applying the mask keeps
/// the scores' precision.
inline constexpr float kMaskFloor = -1.0e4F;

/// A softmax input at or below this is a masked score: calibration leaves it out of the range.
inline constexpr float kMaskedScore = -1000.0F;

/// How far below the least unmasked score a masked softmax input's range reaches: masked scores
/// saturate there, and 2^15 * exp(-11.5) rounds to 0, so their exp table entry is 0 in every row.
inline constexpr float kMaskHeadroom = 11.5F;

}  // namespace npu::compiler
