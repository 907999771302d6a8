// The partition report: MAC counts, per-device totals and the segment table.
#include "npu/compiler/partition/partition_report.h"

#include <fmt/format.h>

#include <array>

#include "npu/compiler/ir/head_matmul.h"
#include "npu/compiler/ir/op_params.h"
#include "npu/compiler/target/live_taps.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

double percent(std::int64_t part, std::int64_t total) {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(total);
}

/// 1234567 -> "1,234,567".
std::string grouped(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string valueList(const Graph& graph, const std::vector<ValueId>& ids) {
  std::string out;
  for (ValueId id : ids) {
    const Value& v = graph.value(id);
    if (!out.empty()) {
      out += ", ";
    }
    out += fmt::format("{} {}", v.name, formatType(v.dtype, v.shape));
  }
  return out.empty() ? "-" : out;
}

}  // namespace

std::int64_t nodeMacs(const Graph& graph, const Node& node) {
  auto shapeOf = [&](ValueId id) -> const Shape& { return graph.value(id).shape; };
  switch (node.op) {
    case OpKind::Conv: {
      // Over the taps that read the map at all (liveTaps), as the NPU computes them.
      const Shape& w = shapeOf(node.input(1));  // [M, C/g, kH, kW]
      const Shape& x = shapeOf(node.input(0));
      const Shape& y = shapeOf(node.outputs.at(0));
      std::int64_t taps = w[2] * w[3];
      if (x.size() == 4 && y.size() == 4) {
        try {
          const golden::Conv2dParams p = convParams(node, x, w);
          taps = liveTaps(x[2], y[2], w[2], p.strides[0], p.dilations[0], p.pads[0]).second *
                 liveTaps(x[3], y[3], w[3], p.strides[1], p.dilations[1], p.pads[1]).second;
        } catch (const Error&) {
          // Attributes the NPU rejects: the plain count.
        }
      }
      return elementCount(y) * w[1] * taps;
    }
    case OpKind::ConvTranspose: {
      const Shape& w = shapeOf(node.input(1));  // [C, M/g, kH, kW]
      return elementCount(shapeOf(node.input(0))) * w[1] * w[2] * w[3];
    }
    case OpKind::Gemm:
    case OpKind::MatMul: {
      const Shape& a = shapeOf(node.input(0));
      std::int64_t k = a.empty() ? 1 : a.back();
      if (node.op == OpKind::Gemm && node.attributes.getInt("transA", 0) != 0 && a.size() == 2) {
        k = a[0];
      }
      return elementCount(shapeOf(node.outputs.at(0))) * k;
    }
    case OpKind::HeadMatMul: {
      const HeadMatMulGeometry g = headMatMulGeometry(node.attributes);
      return g.heads * g.m * g.n * g.k;
    }
    default:
      return 0;
  }
}

std::array<DeviceTotals, 2> partitionTotals(const Graph& graph, const Partition& partition) {
  std::array<DeviceTotals, 2> totals{};
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    DeviceTotals& t = totals[partition.device[n] == Device::Npu ? 0 : 1];
    ++t.ops;
    t.macs += nodeMacs(graph, graph.nodes()[n]);
  }
  return totals;
}

std::string formatPartitionReport(const Graph& graph, const Partition& partition) {
  std::array<DeviceTotals, 2> totals = partitionTotals(graph, partition);
  std::int64_t ops = totals[0].ops + totals[1].ops;
  std::int64_t macs = totals[0].macs + totals[1].macs;
  std::string out = fmt::format("Partition of {} (strategy {}): {} segments\n", graph.source(),
                                strategyName(partition.strategy), partition.segments.size());
  out += fmt::format("{:<8}{:>8}{:>9}{:>18}{:>9}\n", "", "ops", "", "MACs", "");
  const char* names[2] = {"NPU", "Host"};
  for (int d = 0; d < 2; ++d) {
    out += fmt::format("{:<8}{:>8}{:>8.1f}%{:>18}{:>8.1f}%\n", names[d], totals[d].ops,
                       percent(totals[d].ops, ops), grouped(totals[d].macs),
                       percent(totals[d].macs, macs));
  }
  out += fmt::format("{:<8}{:>8}{:>9}{:>18}\n", "Total", ops, "", grouped(macs));

  out += "\nSegments\n";
  for (std::size_t s = 0; s < partition.segments.size(); ++s) {
    const Segment& segment = partition.segments[s];
    std::int64_t segmentMacs = 0;
    for (std::size_t n : segment.nodes) {
      segmentMacs += nodeMacs(graph, graph.nodes()[n]);
    }
    out += fmt::format("  #{} {}: {} ops, {} MACs ({} .. {})\n", s, deviceName(segment.device),
                       segment.nodes.size(), grouped(segmentMacs),
                       graph.nodes()[segment.nodes.front()].name,
                       graph.nodes()[segment.nodes.back()].name);
    out += fmt::format("      inputs:  {}\n", valueList(graph, segment.inputs));
    out += fmt::format("      outputs: {}\n", valueList(graph, segment.outputs));
  }
  if (totals[1].ops > 0) {
    out += "\nOn the host\n";
    for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
      if (partition.device[n] == Device::Host) {
        const Node& node = graph.nodes()[n];
        out += fmt::format("  {} ({}): {}\n", node.name, opName(node.op), partition.hostReason[n]);
      }
    }
  }
  return out;
}

}  // namespace npu::compiler
