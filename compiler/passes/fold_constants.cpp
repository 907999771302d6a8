// The fold-constants pass: nodes whose inputs are all known become constants.
#include "npu/compiler/passes/fold_constants.h"

#include "npu/compiler/interp/evaluate.h"
#include "npu/compiler/ir/diagnostics.h"

namespace npu::compiler {
namespace {

/// Larger results stay computed at run time (a ConstantOfShape could ask for gigabytes).
constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 24;

bool foldable(const Graph& graph, const Node& node) {
  if (node.inputs.empty()) {
    return false;
  }
  for (ValueId out : node.outputs) {
    if (elementCount(graph.value(out).shape) > kMaxFoldedElements) {
      return false;
    }
  }
  for (ValueId in : node.inputs) {
    if (in.valid() && !graph.value(in).isConstant()) {
      // Shape needs only its input's (static) shape.
      if (!(node.op == OpKind::Shape && graph.value(in).typed)) {
        return false;
      }
    }
  }
  return true;
}

RuntimeValue shapeOnly(const Value& v) {
  return Tensor{v.shape, TensorData()};
}

}  // namespace

void foldConstants(Graph& graph) {
  std::vector<bool> folded(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& node = graph.nodes()[n];
    if (!foldable(graph, node)) {
      continue;
    }
    std::vector<RuntimeValue> operands(node.inputs.size());
    std::vector<const RuntimeValue*> pointers(node.inputs.size(), nullptr);
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      if (!node.inputs[i].valid()) {
        continue;
      }
      const Value& v = graph.value(node.inputs[i]);
      operands[i] = v.isConstant() ? runtimeValueOf(v) : shapeOnly(v);
      pointers[i] = &operands[i];
    }
    std::vector<RuntimeValue> results =
        withNodeContext(graph, node, [&] { return evaluateNode(node, pointers); });
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      Value& out = graph.value(node.outputs[i]);
      if (auto* f = std::get_if<golden::FloatTensor>(&results[i])) {
        out.dtype = DType::Float32;
        out.shape = f->shape;
        out.data = TensorData(std::move(f->data));
      } else {
        auto& t = std::get<Tensor>(results[i]);
        out.dtype = t.data.dtype();
        out.shape = t.shape;
        out.data = std::move(t.data);
      }
      out.typed = true;
    }
    folded[n] = true;
  }
  graph.removeNodes(folded);
}

}  // namespace npu::compiler
