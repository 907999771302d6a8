// The eliminate-dead-code pass: nodes nothing reads, then values nothing refers to.
#include "npu/compiler/passes/eliminate_dead_code.h"

namespace npu::compiler {

void eliminateDeadCode(Graph& graph) {
  std::vector<bool> needed(graph.valueCount(), false);
  for (ValueId out : graph.outputs()) {
    needed[out.index] = true;
  }
  const std::vector<Node>& nodes = graph.nodes();
  std::vector<bool> dead(nodes.size(), false);
  for (std::size_t n = nodes.size(); n-- > 0;) {
    bool live = false;
    for (ValueId out : nodes[n].outputs) {
      live = live || needed[out.index];
    }
    if (!live) {
      dead[n] = true;
      continue;
    }
    for (ValueId in : nodes[n].inputs) {
      if (in.valid()) {
        needed[in.index] = true;
      }
    }
  }
  graph.removeNodes(dead);
  graph.removeUnusedValues();
}

}  // namespace npu::compiler
