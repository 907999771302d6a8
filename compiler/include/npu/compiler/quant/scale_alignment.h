// Scale alignment: values the NPU moves without arithmetic share one scale and zero point.
#pragma once

#include <string>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"

namespace npu::compiler {

/// The groups of values that must share one scale and zero point, because the NPU node between
/// them moves bytes without arithmetic: the inputs and output of a concat, max pool, average
/// pool, global average pool, upsample and of a layout no-op (alias). Groups are merged
/// transitively; each has at least two value names, in graph order; values in no group are
/// absent.
std::vector<std::vector<std::string>> alignmentGroups(const Graph& graph,
                                                      const Partition& partition);

}  // namespace npu::compiler
