// Scale alignment groups by union-find over the byte-moving NPU nodes.
#include "npu/compiler/quant/scale_alignment.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace npu::compiler {
namespace {

bool movesBytes(NpuOpKind kind) {
  switch (kind) {
    case NpuOpKind::MaxPool:
    case NpuOpKind::AvgPool:
    case NpuOpKind::GlobalAvgPool:
    case NpuOpKind::Concat:
    case NpuOpKind::Slice:
    case NpuOpKind::ChannelShuffle:
    case NpuOpKind::Upsample:
    case NpuOpKind::ResizeLinear:  // a convex combination: the input's range holds the output
    case NpuOpKind::Alias:
      return true;
    default:
      return false;
  }
}

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : m_parent(n) {
    std::iota(m_parent.begin(), m_parent.end(), std::size_t{0});
  }
  std::size_t find(std::size_t i) {
    while (m_parent[i] != i) {
      m_parent[i] = m_parent[m_parent[i]];
      i = m_parent[i];
    }
    return i;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) {
      m_parent[std::max(a, b)] = std::min(a, b);
    }
  }

 private:
  std::vector<std::size_t> m_parent;
};

}  // namespace

std::vector<std::vector<std::string>> alignmentGroups(const Graph& graph,
                                                      const Partition& partition) {
  UnionFind sets(graph.valueCount());
  std::vector<bool> member(graph.valueCount(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (!partition.npuKind[n] || !movesBytes(*partition.npuKind[n])) {
      continue;
    }
    const Node& node = graph.nodes()[n];
    ValueId out = node.outputs.at(0);
    member[out.index] = true;
    std::size_t activations = partition.npuKind[n] == NpuOpKind::Concat ? node.inputs.size() : 1;
    for (std::size_t i = 0; i < activations; ++i) {
      sets.join(out.index, node.inputs[i].index);
      member[node.inputs[i].index] = true;
    }
  }
  std::map<std::size_t, std::vector<std::string>> groups;
  std::vector<std::size_t> order;
  for (std::size_t v = 0; v < graph.valueCount(); ++v) {
    if (!member[v]) {
      continue;
    }
    std::size_t root = sets.find(v);
    if (groups.find(root) == groups.end()) {
      order.push_back(root);
    }
    groups[root].push_back(graph.value(ValueId{static_cast<std::uint32_t>(v)}).name);
  }
  std::vector<std::vector<std::string>> out;
  for (std::size_t root : order) {
    out.push_back(std::move(groups[root]));
  }
  return out;
}

}  // namespace npu::compiler
