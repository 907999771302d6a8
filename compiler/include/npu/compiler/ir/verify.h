// The IR verifier: run after every pass in debug builds and with --verify-each.
#pragma once

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Checks that the graph is well formed and throws Error naming the first problem: every node input
/// and output refers to an existing value; every value is produced once (by a node, as a graph
/// input or as a constant) and before it is read (topological order, so no cycles); names are
/// unique; every value is typed; constants hold as many elements as their shape needs; and each
/// node's outputs have the dtype and shape its op rule infers from its inputs.
void verifyGraph(const Graph& graph);

}  // namespace npu::compiler
