// The slice-space-to-depth pass: SpaceToDepth as strided Slices, Slice chains merged.
#include "npu/compiler/passes/slice_space_to_depth.h"

#include <algorithm>
#include <numeric>

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// A Slice's constant bounds with the defaults filled in.
struct SliceBounds {
  std::vector<std::int64_t> starts;
  std::vector<std::int64_t> ends;
  std::vector<std::int64_t> axes;
  std::vector<std::int64_t> steps;
};

std::optional<SliceBounds> boundsOf(const Graph& graph, const Node& slice) {
  const TensorData* starts = constantData(graph, slice.input(1));
  const TensorData* ends = constantData(graph, slice.input(2));
  if (slice.op != OpKind::Slice || starts == nullptr || ends == nullptr ||
      (slice.input(3).valid() && constantData(graph, slice.input(3)) == nullptr) ||
      (slice.input(4).valid() && constantData(graph, slice.input(4)) == nullptr)) {
    return std::nullopt;
  }
  SliceBounds b{starts->toInt64(), ends->toInt64(), {}, {}};
  b.axes.resize(b.starts.size());
  std::iota(b.axes.begin(), b.axes.end(), 0);
  if (slice.input(3).valid()) {
    b.axes = constantData(graph, slice.input(3))->toInt64();
  }
  b.steps.assign(b.starts.size(), 1);
  if (slice.input(4).valid()) {
    b.steps = constantData(graph, slice.input(4))->toInt64();
  }
  auto rank = static_cast<std::int64_t>(graph.value(slice.input(0)).shape.size());
  for (std::int64_t& axis : b.axes) {
    axis = axis < 0 ? axis + rank : axis;
  }
  if (b.ends.size() != b.starts.size() || b.axes.size() != b.starts.size() ||
      b.steps.size() != b.starts.size()) {
    return std::nullopt;
  }
  return b;
}

Node sliceNode(Graph& graph, const std::string& name, ValueId in, ValueId out,
               const SliceBounds& b) {
  Node slice;
  slice.name = name;
  slice.op = OpKind::Slice;
  slice.inputs = {in, addIndexConstant(graph, name + ".starts", b.starts),
                  addIndexConstant(graph, name + ".ends", b.ends),
                  addIndexConstant(graph, name + ".axes", b.axes),
                  addIndexConstant(graph, name + ".steps", b.steps)};
  slice.outputs = {out};
  return slice;
}

/// SpaceToDepth at node `i` as b * b Slices and a Concat; left alone when its input is not an
/// f32 [N, C, H, W] tensor whose H and W the block divides.
void expandSpaceToDepth(Graph& graph, std::size_t i) {
  const Node s2d = graph.nodes()[i];
  const Shape in = graph.value(s2d.input(0)).shape;  // a copy: adding values moves the table
  std::int64_t b = s2d.attributes.getInt("blocksize", 0);
  if (in.size() != 4 || b < 1 || in[2] % b != 0 || in[3] % b != 0 ||
      graph.value(s2d.input(0)).dtype != DType::Float32) {
    return;
  }
  std::vector<Node> nodes;
  Node concat;
  concat.name = s2d.name;
  concat.op = OpKind::Concat;
  concat.attributes.set("axis", std::int64_t{1});
  concat.outputs = s2d.outputs;
  for (std::int64_t by = 0; by < b; ++by) {
    for (std::int64_t bx = 0; bx < b; ++bx) {
      std::string name = graph.uniqueNodeName(s2d.name + "/block" + std::to_string(by * b + bx));
      ValueId part = graph.addIntermediate(graph.uniqueValueName(name));
      Value& v = graph.value(part);
      v.shape = {in[0], in[1], in[2] / b, in[3] / b};
      v.typed = true;
      nodes.push_back(
          sliceNode(graph, name, s2d.input(0), part, {{by, bx}, {in[2], in[3]}, {2, 3}, {b, b}}));
      concat.inputs.push_back(part);
    }
  }
  nodes.push_back(std::move(concat));
  auto at = graph.nodes().begin() + static_cast<std::ptrdiff_t>(i);
  at = graph.nodes().erase(at);
  graph.nodes().insert(at, nodes.begin(), nodes.end());
}

}  // namespace

void sliceSpaceToDepth(Graph& graph) {
  for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
    if (graph.nodes()[i].op == OpKind::SpaceToDepth) {
      expandSpaceToDepth(graph, i);  // the nodes put in its place are no SpaceToDepth
    }
  }
  // Slice -> Slice over disjoint axes: one Slice with both sets of bounds. Exporters share the
  // row slice between two column slices (Focus), so every such reader is merged, and the first
  // Slice goes once nothing else reads it.
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    std::optional<SliceBounds> a = boundsOf(graph, graph.nodes()[n]);
    if (!a || removed[n]) {
      continue;
    }
    ValueId mid = graph.nodes()[n].outputs.at(0);
    ValueId source = graph.nodes()[n].input(0);
    std::size_t merged = 0;
    for (std::size_t reader : uses.consumers(mid)) {
      const Node& second = graph.nodes()[reader];
      std::optional<SliceBounds> b = boundsOf(graph, second);
      if (!b || second.input(0) != mid ||
          std::any_of(b->axes.begin(), b->axes.end(), [&](std::int64_t axis) {
            return std::find(a->axes.begin(), a->axes.end(), axis) != a->axes.end();
          })) {
        continue;
      }
      SliceBounds both = *a;
      for (std::size_t k = 0; k < b->axes.size(); ++k) {
        both.starts.push_back(b->starts[k]);
        both.ends.push_back(b->ends[k]);
        both.axes.push_back(b->axes[k]);
        both.steps.push_back(b->steps[k]);
      }
      std::string name = second.name;
      ValueId out = second.outputs.at(0);
      graph.nodes()[reader] = sliceNode(graph, name, source, out, both);
      ++merged;
    }
    removed[n] = merged > 0 && merged == uses.consumers(mid).size() && !graph.isOutput(mid);
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
