// The node context every node error begins with.
#include "npu/compiler/ir/diagnostics.h"

namespace npu::compiler {

std::string nodeContext(const Graph& graph, const Node& node) {
  return fmt::format("{}: node '{}' ({})", graph.source(), node.name, opName(node.op));
}

}  // namespace npu::compiler
