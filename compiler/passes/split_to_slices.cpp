// The split-to-slices pass: a Split becomes one Slice per output.
#include "npu/compiler/passes/split_to_slices.h"

#include "rewrite.h"

namespace npu::compiler {

void splitToSlices(Graph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    const Node& split = graph.nodes()[i];
    if (split.op != OpKind::Split || graph.value(split.input(0)).dtype != DType::Float32) {
      continue;
    }
    const Shape& in = graph.value(split.input(0)).shape;
    std::int64_t axis = split.attributes.getInt("axis", 0);
    axis = axis < 0 ? axis + static_cast<std::int64_t>(in.size()) : axis;
    std::vector<Node> slices;
    std::int64_t begin = 0;
    for (std::size_t k = 0; k < split.outputs.size(); ++k) {
      std::int64_t size = graph.value(split.outputs[k]).shape[static_cast<std::size_t>(axis)];
      Node slice;
      slice.name = graph.uniqueNodeName(split.name + "/part" + std::to_string(k));
      slice.op = OpKind::Slice;
      slice.inputs = {split.input(0), addIndexConstant(graph, slice.name + ".starts", {begin}),
                      addIndexConstant(graph, slice.name + ".ends", {begin + size}),
                      addIndexConstant(graph, slice.name + ".axes", {axis})};
      slice.outputs = {split.outputs[k]};
      slices.push_back(std::move(slice));
      begin += size;
    }
    graph.nodes().erase(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i));
    graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i), slices.begin(),
                         slices.end());
    i += slices.size() - 1;
  }
}

}  // namespace npu::compiler
