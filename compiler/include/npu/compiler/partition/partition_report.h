// The partition report, in the style of Arm Vela's summary: ops and MACs on the NPU and the host.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/partition/partition.h"

namespace npu::compiler {

/// Multiply-accumulates of one node: conv N*Cout*oH*oW*(Cin/groups)*kH*kW, ConvTranspose and
/// Gemm/MatMul likewise; 0 for every other op.
std::int64_t nodeMacs(const Graph& graph, const Node& node);

/// Counts of one device.
struct DeviceTotals {
  std::int64_t ops = 0;
  std::int64_t macs = 0;
};

/// Totals per device: [0] NPU, [1] host.
std::array<DeviceTotals, 2> partitionTotals(const Graph& graph, const Partition& partition);

/// The report as text: a summary table (ops and MACs on NPU vs host, count and %), the segments
/// with their inputs and outputs, and why each host node is on the host.
std::string formatPartitionReport(const Graph& graph, const Partition& partition);

}  // namespace npu::compiler
