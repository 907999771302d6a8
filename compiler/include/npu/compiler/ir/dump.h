// A readable text form of a graph, for --dump and --dump-after.
#pragma once

#include <string>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// One line per graph input, constant, node and graph output, with shapes, e.g.
/// `%y = Conv[conv1](%x, %w, %b) {group=1, pads=[1, 1, 1, 1]} : f32[1, 8, 16, 16]`.
std::string dumpGraph(const Graph& graph);

}  // namespace npu::compiler
