// The capacity check: the NPU layers' constants against the hardware's DDR.
#include "npu/compiler/partition/capacity_check.h"

#include <algorithm>

#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// The bytes a layer's constants take in DDR at least: int8 weights and an int32 bias per output
/// channel for a conv (FC layers are convs by now), one int8 scale and one int32 bias per
/// channel for a per-channel affine; other NPU ops keep no constants there.
std::int64_t constantBytes(const Graph& graph, const Node& node, NpuOpKind kind) {
  const Shape& out = graph.value(node.outputs.at(0)).shape;
  std::int64_t channels = out.size() > 1 ? out[1] : 1;
  switch (kind) {
    case NpuOpKind::Conv:
      return elementCount(graph.value(node.input(1)).shape) + 4 * channels;
    case NpuOpKind::ChannelAffine:
      return 5 * channels;
    default:
      return 0;
  }
}

/// The int8 activation bytes a layer reads and writes at once (each input and the output, one
/// byte an element). A conv reading a model input may read it rearranged by the host (first-layer
/// im2col), so only its output counts.
std::int64_t activationBytes(const Graph& graph, const Node& node, NpuOpKind kind) {
  std::int64_t bytes = elementCount(graph.value(node.outputs.at(0)).shape);
  if (kind == NpuOpKind::Conv && graph.isInput(node.input(0))) {
    return bytes;
  }
  std::vector<ValueId> seen;
  for (const ValueId id : node.inputs) {
    if (!id.valid() || graph.value(id).isConstant() ||
        std::find(seen.begin(), seen.end(), id) != seen.end()) {
      continue;
    }
    seen.push_back(id);
    bytes += elementCount(graph.value(id).shape);
  }
  return bytes;
}

}  // namespace

void checkNpuCapacity(const Graph& graph, const Partition& partition,
                      const isa::NpuConfig& hardware) {
  std::int64_t total = 0;
  std::int64_t largest = 0;
  const Node* largestNode = nullptr;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (!partition.npuKind[n]) {
      continue;
    }
    std::int64_t bytes = constantBytes(graph, graph.nodes()[n], *partition.npuKind[n]);
    total += bytes;
    if (bytes > largest) {
      largest = bytes;
      largestNode = &graph.nodes()[n];
    }
  }
  // The constants stay for the whole run, and one layer's input and output activations are live
  // together beside them.
  std::int64_t activations = 0;
  const Node* activationNode = nullptr;
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    if (!partition.npuKind[n] || *partition.npuKind[n] == NpuOpKind::Alias) {
      continue;  // an alias's output is its input's bytes
    }
    std::int64_t bytes = activationBytes(graph, graph.nodes()[n], *partition.npuKind[n]);
    if (bytes > activations) {
      activations = bytes;
      activationNode = &graph.nodes()[n];
    }
  }
  if (total + activations > hardware.ddrBytes && total <= hardware.ddrBytes &&
      activationNode != nullptr) {
    fail(ErrorKind::Unsupported,
         "{}: the NPU layer '{}' reads and writes {} bytes of int8 activations at once, beside "
         "{} bytes of the NPU layers' weights and biases; '{}' has {} bytes of DDR; use hardware "
         "with more DDR (--hw) or keep layers on the host (host_layers in the quantization config)",
         graph.source(), activationNode->name, activations, total, hardware.name,
         hardware.ddrBytes);
  }
  if (total > hardware.ddrBytes && largestNode != nullptr) {
    fail(
        "{}: the NPU layers' int8 weights and int32 biases alone need {} bytes of DDR, '{}' has "
        "{} (largest: layer '{}', {} bytes); use hardware with more DDR (--hw) or keep layers on "
        "the host (host_layers in the quantization config)",
        graph.source(), total, hardware.name, hardware.ddrBytes, largestNode->name, largest);
  }
}

}  // namespace npu::compiler
