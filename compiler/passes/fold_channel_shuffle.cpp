// The fold-channel-shuffle pass: Reshape -> Transpose -> Reshape channel shuffles as a Gather.
#include "npu/compiler/passes/fold_channel_shuffle.h"

#include <algorithm>

#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The input channel each output channel of a shuffle in `groups` groups reads.
std::vector<std::int64_t> shuffleOrder(std::int64_t channels, std::int64_t groups) {
  std::int64_t perGroup = channels / groups;
  std::vector<std::int64_t> order;
  for (std::int64_t c = 0; c < perGroup; ++c) {
    for (std::int64_t g = 0; g < groups; ++g) {
      order.push_back(g * perGroup + c);
    }
  }
  return order;
}

/// The group count of the shuffle ending at Reshape node `index`, or 0.
std::int64_t matchShuffle(const Graph& graph, const Uses& uses, std::size_t index) {
  const Node& back = graph.nodes()[index];
  if (back.op != OpKind::Reshape) {
    return 0;
  }
  std::optional<std::size_t> t = uses.producer(back.input(0));
  if (!t || graph.nodes()[*t].op != OpKind::Transpose || !uses.hasSingleUse(back.input(0))) {
    return 0;
  }
  const Node& transpose = graph.nodes()[*t];
  std::optional<std::size_t> r = uses.producer(transpose.input(0));
  if (!r || graph.nodes()[*r].op != OpKind::Reshape || !uses.hasSingleUse(transpose.input(0)) ||
      transpose.attributes.getInts("perm", {}) != std::vector<std::int64_t>{0, 2, 1, 3, 4}) {
    return 0;
  }
  const Value& x = graph.value(graph.nodes()[*r].input(0));
  const Shape& split = graph.value(transpose.input(0)).shape;
  const Shape& out = graph.value(back.outputs[0]).shape;
  if (x.dtype != DType::Float32 || x.shape.size() != 4 || out != x.shape || split.size() != 5 ||
      split[0] != x.shape[0] || split[1] * split[2] != x.shape[1] || split[3] != x.shape[2] ||
      split[4] != x.shape[3] || split[1] < 2) {
    return 0;
  }
  return split[1];
}

}  // namespace

std::int64_t shuffleGroups(std::span<const std::int64_t> indices, std::int64_t channels) {
  if (static_cast<std::int64_t>(indices.size()) != channels) {
    return 0;
  }
  for (std::int64_t g = 2; g <= channels; ++g) {
    if (channels % g == 0 && channels / g >= 2) {
      std::vector<std::int64_t> order = shuffleOrder(channels, g);
      if (std::equal(order.begin(), order.end(), indices.begin())) {
        return g;
      }
    }
  }
  return 0;
}

void foldChannelShuffle(Graph& graph) {
  bool changed = true;
  while (changed) {
    changed = false;
    Uses uses(graph);
    for (std::size_t i = 0; i < graph.nodes().size(); ++i) {
      std::int64_t groups = matchShuffle(graph, uses, i);
      if (groups == 0) {
        continue;
      }
      std::size_t t = *uses.producer(graph.nodes()[i].input(0));
      std::size_t r = *uses.producer(graph.nodes()[t].input(0));
      ValueId x = graph.nodes()[r].input(0);
      std::int64_t channels = graph.value(x).shape[1];
      Node& gather = graph.nodes()[i];
      gather.op = OpKind::Gather;
      gather.inputs = {
          x, addIndexConstant(graph, gather.name + ".channels", shuffleOrder(channels, groups))};
      gather.attributes = Attributes();
      gather.attributes.set("axis", std::int64_t{1});
      std::vector<bool> removed(graph.nodes().size(), false);
      removed[t] = removed[r] = true;
      graph.removeNodes(removed);
      changed = true;
      break;
    }
  }
}

}  // namespace npu::compiler
