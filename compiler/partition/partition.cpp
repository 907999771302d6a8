// The dispatcher: per-node NPU support, then segments from a device-greedy topological order.
#include "npu/compiler/partition/partition.h"

#include <algorithm>
#include <set>

#include "npu/compiler/ir/masked_scores.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// Producer node index of every value (nullopt for inputs and constants).
std::vector<std::optional<std::size_t>> producers(const Graph& graph) {
  std::vector<std::optional<std::size_t>> producer(graph.valueCount());
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    for (ValueId out : graph.nodes()[n].outputs) {
      producer[out.index] = n;
    }
  }
  return producer;
}

/// A topological order that stays on one device as long as some node of it is ready, taking
/// the earliest ready node of the graph order; returns the segments of that order.
std::vector<Segment> groupIntoSegments(const Graph& graph, const std::vector<Device>& device) {
  const std::vector<Node>& nodes = graph.nodes();
  std::vector<std::optional<std::size_t>> producer = producers(graph);
  std::vector<std::vector<std::size_t>> consumers(nodes.size());
  std::vector<std::size_t> pending(nodes.size(), 0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    std::set<std::size_t> preds;
    for (ValueId in : nodes[n].inputs) {
      if (in.valid() && producer[in.index]) {
        preds.insert(*producer[in.index]);
      }
    }
    pending[n] = preds.size();
    for (std::size_t p : preds) {
      consumers[p].push_back(n);
    }
  }
  std::set<std::size_t> ready;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (pending[n] == 0) {
      ready.insert(n);
    }
  }
  // Host nodes that lead to an NPU node (a rotary table, a mask, a cache's layout: work the NPU
  // waits for) go first: starting on the NPU would stop at the first node needing them.
  std::vector<bool> feedsNpu(nodes.size(), false);
  for (std::size_t n = nodes.size(); n-- > 0;) {
    for (std::size_t c : consumers[n]) {
      feedsNpu[n] = feedsNpu[n] || device[c] == Device::Npu || feedsNpu[c];
    }
  }
  std::vector<Segment> segments;
  while (!ready.empty()) {
    std::size_t next = *ready.begin();
    if (segments.empty()) {
      const auto host = std::find_if(ready.begin(), ready.end(), [&](std::size_t n) {
        return device[n] == Device::Host && feedsNpu[n];
      });
      next = host != ready.end() ? *host : next;
    }
    if (!segments.empty()) {
      for (std::size_t n : ready) {
        if (device[n] == segments.back().device) {
          next = n;
          break;
        }
      }
    }
    if (segments.empty() || device[next] != segments.back().device) {
      segments.push_back(Segment{device[next], {}, {}, {}});
    }
    segments.back().nodes.push_back(next);
    ready.erase(next);
    for (std::size_t c : consumers[next]) {
      if (--pending[c] == 0) {
        ready.insert(c);
      }
    }
  }
  return segments;
}

/// Fills each segment's inputs and outputs.
void findBorders(const Graph& graph, std::vector<Segment>& segments,
                 const std::vector<std::size_t>& segmentOf) {
  std::vector<std::optional<std::size_t>> producer = producers(graph);
  std::vector<bool> crosses(graph.valueCount(), false);
  for (ValueId out : graph.outputs()) {
    crosses[out.index] = true;
  }
  for (std::size_t s = 0; s < segments.size(); ++s) {
    Segment& segment = segments[s];
    for (std::size_t n : segment.nodes) {
      for (ValueId in : graph.nodes()[n].inputs) {
        if (!in.valid() || graph.value(in).isConstant()) {
          continue;
        }
        std::optional<std::size_t> p = producer[in.index];
        if (p && segmentOf[*p] == s) {
          continue;
        }
        crosses[in.index] = true;
        if (std::find(segment.inputs.begin(), segment.inputs.end(), in) == segment.inputs.end()) {
          segment.inputs.push_back(in);
        }
      }
    }
  }
  for (Segment& segment : segments) {
    for (std::size_t n : segment.nodes) {
      for (ValueId out : graph.nodes()[n].outputs) {
        if (crosses[out.index]) {
          segment.outputs.push_back(out);
        }
      }
    }
  }
}

}  // namespace

std::string_view deviceName(Device device) {
  return device == Device::Npu ? "npu" : "host";
}

Partition partitionGraph(const Graph& graph, const PartitionOptions& options) {
  const std::vector<Node>& nodes = graph.nodes();
  Partition partition;
  partition.strategy = options.strategy;
  partition.device.assign(nodes.size(), Device::Host);
  partition.npuKind.assign(nodes.size(), std::nullopt);
  partition.hostReason.assign(nodes.size(), "");

  for (const std::string& name : options.hostLayers) {
    if (std::none_of(nodes.begin(), nodes.end(),
                     [&](const Node& node) { return graph.namesNode(node, name); })) {
      fail("{}: host layer '{}' names no node of the graph", graph.source(), name);
    }
  }
  const std::vector<bool> integerDerived = integerDerivedValues(graph);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const Node& node = nodes[n];
    bool pinned = std::any_of(options.hostLayers.begin(), options.hostLayers.end(),
                              [&](const std::string& name) { return graph.namesNode(node, name); });
    NpuSupport support = npuSupport(graph, node, options.strategy);
    auto beyond = std::find_if(options.beyondNpu.begin(), options.beyondNpu.end(),
                               [&](const auto& placed) { return placed.first == n; });
    const bool fromIntegers =
        !node.outputs.empty() && std::all_of(node.outputs.begin(), node.outputs.end(),
                                             [&](ValueId v) { return integerDerived[v.index]; });
    if (pinned) {
      partition.hostReason[n] = "kept on the host by the quantization config";
    } else if (fromIntegers) {
      partition.hostReason[n] =
          "computed from integer inputs alone (an attention mask, positions): host work";
    } else if (beyond != options.beyondNpu.end()) {
      partition.hostReason[n] = beyond->second;
    } else if (support.kind) {
      partition.device[n] = Device::Npu;
      partition.npuKind[n] = support.kind;
    } else {
      partition.hostReason[n] = support.reason;
    }
  }

  // Group; an NPU segment that computes nothing of its own goes back to the host: only aliases,
  // only per-channel affine ops (a LayerNorm's "+ epsilon" between host reductions) or only a
  // softmax (a classifier's, after a flatten the host keeps), whose two border hops would cost
  // more than the op.
  while (true) {
    partition.segments = groupIntoSegments(graph, partition.device);
    bool changed = false;
    for (const Segment& segment : partition.segments) {
      if (segment.device != Device::Npu) {
        continue;
      }
      bool computes = std::any_of(segment.nodes.begin(), segment.nodes.end(), [&](std::size_t n) {
        return partition.npuKind[n] != NpuOpKind::Alias &&
               partition.npuKind[n] != NpuOpKind::ChannelAffine &&
               partition.npuKind[n] != NpuOpKind::Softmax;
      });
      if (!computes) {
        for (std::size_t n : segment.nodes) {
          const NpuOpKind kind = *partition.npuKind[n];
          partition.device[n] = Device::Host;
          partition.npuKind[n].reset();
          partition.hostReason[n] = kind == NpuOpKind::Alias
                                        ? "layout no-op with no NPU compute next to it"
                                    : kind == NpuOpKind::Softmax
                                        ? "softmax with no other NPU compute next to it"
                                        : "per-channel affine with no other NPU compute next to it";
        }
        changed = true;
      }
    }
    if (!changed) {
      break;
    }
  }
  partition.segmentOf.assign(nodes.size(), 0);
  for (std::size_t s = 0; s < partition.segments.size(); ++s) {
    for (std::size_t n : partition.segments[s].nodes) {
      partition.segmentOf[n] = s;
    }
  }
  findBorders(graph, partition.segments, partition.segmentOf);
  return partition;
}

}  // namespace npu::compiler
