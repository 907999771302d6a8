// The fuse-channel-layernorm pass: a LayerNorm over axis 1, spelled out in seven nodes, becomes
// one ChannelLayerNorm.
#include "npu/compiler/passes/fuse_channel_layernorm.h"

#include <array>

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// True when `node` is a keepdims ReduceMean over axis 1 alone.
bool meanOverChannels(const Graph& graph, const Node& node) {
  if (node.op != OpKind::ReduceMean || node.outputs.size() != 1 || !node.input(0).valid() ||
      node.attributes.getInt("keepdims", 1) == 0) {
    return false;
  }
  const TensorData* axes = constantData(graph, node.input(1));
  if (axes == nullptr || axes->size() != 1) {
    return false;
  }
  const auto rank = static_cast<std::int64_t>(graph.value(node.input(0)).shape.size());
  const std::int64_t axis = axes->toInt64()[0];
  return rank >= 2 && (axis == 1 || axis == 1 - rank);
}

}  // namespace

void fuseChannelLayerNorm(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t m = 0; m < graph.nodes().size(); ++m) {
    const Node& mean = graph.nodes()[m];
    if (removed[m] || !meanOverChannels(graph, mean)) {
      continue;
    }
    const ValueId x = mean.input(0);
    const auto sub = soleReader(graph, uses, mean.outputs[0], OpKind::Sub);
    if (!sub || graph.nodes()[*sub].inputs.size() != 2 || graph.nodes()[*sub].inputs[0] != x ||
        graph.nodes()[*sub].inputs[1] != mean.outputs[0]) {
      continue;
    }
    const ValueId centred = graph.nodes()[*sub].outputs[0];
    // The centred values feed exactly a square (Mul d d, or Pow d 2) and the Div.
    std::optional<std::size_t> square;
    std::optional<std::size_t> div;
    for (const std::size_t reader : uses.consumers(centred)) {
      const Node& r = graph.nodes()[reader];
      if (r.op == OpKind::Mul && r.inputs.size() == 2 && r.inputs[0] == centred &&
          r.inputs[1] == centred) {
        square = square ? std::optional<std::size_t>() : reader;
      } else if (r.op == OpKind::Pow && r.inputs.size() == 2 && r.inputs[0] == centred &&
                 scalarConstant(graph, r.inputs[1]) == 2.0F) {
        square = square ? std::optional<std::size_t>() : reader;
      } else if (r.op == OpKind::Div && r.inputs.size() == 2 && r.inputs[0] == centred) {
        div = div ? std::optional<std::size_t>() : reader;
      } else {
        square.reset();
        div.reset();
        break;
      }
    }
    if (!square || !div || graph.isOutput(centred) || uses.consumers(centred).size() != 2) {
      continue;
    }
    const auto variance =
        soleReader(graph, uses, graph.nodes()[*square].outputs[0], OpKind::ReduceMean);
    if (!variance || !meanOverChannels(graph, graph.nodes()[*variance])) {
      continue;
    }
    const auto add = soleReader(graph, uses, graph.nodes()[*variance].outputs[0], OpKind::Add);
    if (!add) {
      continue;
    }
    const auto epsilonValue =
        otherOperand(graph.nodes()[*add], graph.nodes()[*variance].outputs[0]);
    const std::optional<float> epsilon =
        epsilonValue ? scalarConstant(graph, *epsilonValue) : std::nullopt;
    if (!epsilon || !(*epsilon >= 0.0F)) {
      continue;
    }
    const auto sqrt = soleReader(graph, uses, graph.nodes()[*add].outputs[0], OpKind::Sqrt);
    if (!sqrt) {
      continue;
    }
    const ValueId deviation = graph.nodes()[*sqrt].outputs[0];
    const auto divReaders = uses.consumers(deviation);
    if (divReaders.size() != 1 || divReaders[0] != *div || graph.isOutput(deviation) ||
        graph.nodes()[*div].inputs[1] != deviation) {
      continue;
    }
    Node& fused = graph.nodes()[*div];
    fused.op = OpKind::ChannelLayerNorm;
    fused.inputs = {x};
    fused.attributes = Attributes();
    fused.attributes.set("epsilon", *epsilon);
    for (const std::size_t gone : std::array{m, *sub, *square, *variance, *add, *sqrt}) {
      removed[gone] = true;
    }
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
