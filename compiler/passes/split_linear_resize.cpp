// The split-linear-resize pass: a bilinear Resize becomes a row Resize and a column Resize.
#include "npu/compiler/passes/split_linear_resize.h"

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// Whether `node` is a linear Resize of a rank-4 f32 tensor with constant scales or sizes.
bool isLinearResize4d(const Graph& graph, const Node& node) {
  return node.op == OpKind::Resize && node.outputs.size() == 1 && node.input(0).valid() &&
         graph.value(node.input(0)).dtype == DType::Float32 &&
         graph.value(node.input(0)).shape.size() == 4 &&
         graph.value(node.outputs[0]).shape.size() == 4 &&
         node.attributes.getString("mode", "nearest") == "linear";
}

}  // namespace

void splitLinearResize(Graph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    if (!isLinearResize4d(graph, graph.nodes()[i])) {
      continue;
    }
    // Copies: adding values below may move every Value, and references with them.
    const Node resize = graph.nodes()[i];
    const Shape in = graph.value(resize.input(0)).shape;
    const Shape out = graph.value(resize.outputs[0]).shape;
    const TensorData* scalesData = constantData(graph, resize.input(2));
    const TensorData* sizesData = constantData(graph, resize.input(3));
    std::vector<float> scales;
    if (scalesData != nullptr && scalesData->size() == 4) {
      scales = scalesData->toFloat();
    } else if (sizesData == nullptr || sizesData->size() != 4) {
      continue;
    }
    // An axis is copied when its size and scale stay 1:1 (golden::resizeLinear).
    auto resized = [&](std::size_t axis) {
      return out[axis] != in[axis] || (!scales.empty() && scales[axis] != 1.0F);
    };
    if (resized(0) || resized(1) || !resized(2) || !resized(3)) {
      continue;
    }
    ValueId rowsOut = graph.addIntermediate(graph.uniqueValueName(resize.name + ".rows"));
    Value& rowsValue = graph.value(rowsOut);
    rowsValue.shape = {in[0], in[1], out[2], in[3]};
    rowsValue.dtype = DType::Float32;
    rowsValue.typed = true;
    Node rows = resize;
    Node cols = resize;
    rows.name = graph.uniqueNodeName(resize.name + "/rows");
    rows.outputs = {rowsOut};
    cols.name = graph.uniqueNodeName(resize.name + "/cols");
    cols.inputs[0] = rowsOut;
    if (!scales.empty()) {
      rows.inputs[2] = addFloatConstant(graph, rows.name + ".scales", {4},
                                        {scales[0], scales[1], scales[2], 1.0F});
      cols.inputs[2] =
          addFloatConstant(graph, cols.name + ".scales", {4}, {1.0F, 1.0F, 1.0F, scales[3]});
    } else {
      rows.inputs[3] = addIndexConstant(graph, rows.name + ".sizes", {in[0], in[1], out[2], in[3]});
      cols.inputs[3] =
          addIndexConstant(graph, cols.name + ".sizes", {in[0], in[1], out[2], out[3]});
    }
    graph.nodes()[i] = std::move(cols);
    graph.nodes().insert(graph.nodes().begin() + static_cast<std::ptrdiff_t>(i), std::move(rows));
    ++i;
  }
}

}  // namespace npu::compiler
