// The infer-shapes pass: writes the op rules' types into the graph's values.
#include "npu/compiler/passes/infer_shapes.h"

#include "npu/compiler/ir/shape_inference.h"

namespace npu::compiler {

void inferShapes(Graph& graph) {
  InferredTypes types = inferGraph(graph);
  for (const Node& node : graph.nodes()) {
    for (ValueId out : node.outputs) {
      Value& v = graph.value(out);
      v.dtype = types[out].dtype;
      v.shape = types[out].shape;
      v.typed = true;
    }
  }
}

}  // namespace npu::compiler
