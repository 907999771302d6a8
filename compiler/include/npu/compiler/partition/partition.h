// The dispatcher: every node to the NPU or the host, grouped into segments in execution order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/target/npu_support.h"

namespace npu::compiler {

/// Where a node runs.
enum class Device : std::uint8_t { Npu, Host };

/// "npu" or "host".
std::string_view deviceName(Device device);

/// A maximal run of nodes on one device. NPU segments run int8 on the NPU; host segments run
/// fp32 on the CPU; values crossing a border are quantized or dequantized there.
struct Segment {
  Device device = Device::Host;
  /// Node indices in execution order (a topological order of the graph).
  std::vector<std::size_t> nodes;
  /// Non-constant values the segment reads from outside it (graph inputs or earlier segments'
  /// outputs), in order of first use.
  std::vector<ValueId> inputs;
  /// Values the segment writes that later segments read or that are graph outputs, in order of
  /// production.
  std::vector<ValueId> outputs;
};

/// How the dispatcher runs.
struct PartitionOptions {
  DispatchStrategy strategy = DispatchStrategy::Conservative;
  /// Node names (or output value names) kept on the host in fp32 whatever the strategy.
  std::vector<std::string> hostLayers;
  /// Nodes (by index) the NPU cannot hold, with the reason (codegen's: no tile of the layer fits
  /// the target's SRAMs or fields); placed on the host with that reason in the report.
  std::vector<std::pair<std::size_t, std::string>> beyondNpu;
};

/// The dispatcher's decision for a graph.
struct Partition {
  DispatchStrategy strategy = DispatchStrategy::Conservative;
  /// Per node (graph node order).
  std::vector<Device> device;
  /// Per node: the NPU form of an NPU node.
  std::vector<std::optional<NpuOpKind>> npuKind;
  /// Per node: why a host node is on the host (empty for NPU nodes).
  std::vector<std::string> hostReason;
  /// In execution order; every node is in exactly one.
  std::vector<Segment> segments;
  /// Per node: the index of its segment.
  std::vector<std::size_t> segmentOf;
};

/// Assigns every node of a typed graph (after the front-end passes) to the NPU or the host and
/// groups them into segments. Nodes are ordered so that each device's nodes stay together where
/// dependencies allow (fewer borders); an NPU segment holding only layout no-ops goes back to the
/// host. Throws Error naming the graph's file for a host layer that names no node.
Partition partitionGraph(const Graph& graph, const PartitionOptions& options = {});

}  // namespace npu::compiler
