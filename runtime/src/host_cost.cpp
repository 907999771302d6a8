// The host cost model of docs/timing.md, "Host segments".
#include "npu/runtime/host_cost.h"

#include <algorithm>
#include <optional>

#include "npu/compiler/partition/partition_report.h"

namespace npu::runtime {
namespace {

std::uint64_t elements(const compiler::Value& value) {
  std::uint64_t n = 1;
  for (std::int64_t d : value.shape) {
    n *= static_cast<std::uint64_t>(d > 0 ? d : 0);
  }
  return n;
}

std::uint64_t overBandwidth(std::uint64_t bytes, const isa::NpuConfig& hw) {
  const auto perCycle = static_cast<std::uint64_t>(hw.ddrBytesPerCycle);
  return (bytes + perCycle - 1) / perCycle;
}

}  // namespace

std::uint64_t hostNodeCycles(const compiler::Graph& graph, const compiler::Node& node,
                             const isa::NpuConfig& hw) {
  std::uint64_t bytes = 0;
  for (compiler::ValueId id : node.inputs) {
    if (id.valid()) {
      bytes += 4 * elements(graph.value(id));
    }
  }
  for (compiler::ValueId id : node.outputs) {
    bytes += 4 * elements(graph.value(id));
  }
  const auto macs = static_cast<std::uint64_t>(compiler::nodeMacs(graph, node));
  return overBandwidth(bytes, hw) + (macs + kHostMacsPerCycle - 1) / kHostMacsPerCycle;
}

std::uint64_t borderCycles(const compiler::Graph& graph, const compiler::Partition& partition,
                           std::size_t s, const isa::NpuConfig& hw) {
  const compiler::Segment& segment = partition.segments.at(s);
  if (segment.device != compiler::Device::Host) {
    return 0;
  }
  // Which segment writes each value, and which read it.
  auto segmentOf = [&](compiler::ValueId id) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < partition.segments.size(); ++k) {
      for (compiler::ValueId out : partition.segments[k].outputs) {
        if (out == id) {
          return k;
        }
      }
    }
    return std::nullopt;
  };
  std::uint64_t bytes = 0;
  for (compiler::ValueId id : segment.inputs) {
    std::optional<std::size_t> from = segmentOf(id);
    if (from && partition.segments[*from].device == compiler::Device::Npu) {
      bytes += elements(graph.value(id));  // the NPU's int8 result, read and dequantised
    }
  }
  for (compiler::ValueId id : segment.outputs) {
    for (std::size_t k = s + 1; k < partition.segments.size(); ++k) {
      const compiler::Segment& later = partition.segments[k];
      if (later.device == compiler::Device::Npu &&
          std::find(later.inputs.begin(), later.inputs.end(), id) != later.inputs.end()) {
        bytes += elements(graph.value(id));  // quantised and written for the NPU
        break;
      }
    }
  }
  return overBandwidth(bytes, hw);
}

}  // namespace npu::runtime
