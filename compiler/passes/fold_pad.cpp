// The fold-pad pass: a zero Pad of the spatial axes moves into the pads of its Conv readers.
#include "npu/compiler/passes/fold_pad.h"

#include <algorithm>

#include "npu/compiler/ir/op_params.h"
#include "rewrite.h"

namespace npu::compiler {
namespace {

/// The spatial pads [top, left, bottom, right] of a Pad node that only pads H and W of an NCHW
/// tensor with zeros, or nullopt.
std::optional<std::array<std::int64_t, 4>> spatialZeroPad(const Graph& graph, const Node& pad) {
  if (pad.op != OpKind::Pad || pad.attributes.getString("mode", "constant") != "constant") {
    return std::nullopt;
  }
  if (pad.input(2).valid() && scalarConstant(graph, pad.input(2)).value_or(1.0F) != 0.0F) {
    return std::nullopt;
  }
  const TensorData* padsData = constantData(graph, pad.input(1));
  if (padsData == nullptr || graph.value(pad.input(0)).shape.size() != 4) {
    return std::nullopt;
  }
  std::vector<std::int64_t> p = padsData->toInt64();
  bool spatialOnly = p.size() == 8 && p[0] == 0 && p[1] == 0 && p[4] == 0 && p[5] == 0;
  if (!spatialOnly || std::any_of(p.begin(), p.end(), [](std::int64_t v) { return v < 0; })) {
    return std::nullopt;
  }
  return std::array<std::int64_t, 4>{p[2], p[3], p[6], p[7]};
}

/// True when `reader` can take the pad: a Conv reading it as data, or an AveragePool that counts
/// padding in its divisor (zeros then average the same) without ceil mode.
bool acceptsPad(const Node& reader, ValueId padded) {
  if (reader.input(0) != padded ||
      std::count(reader.inputs.begin(), reader.inputs.end(), padded) != 1) {
    return false;
  }
  if (reader.op == OpKind::Conv) {
    return true;
  }
  return reader.op == OpKind::AveragePool &&
         reader.attributes.getInt("count_include_pad", 0) != 0 &&
         reader.attributes.getInt("ceil_mode", 0) == 0;
}

void addPads(const Graph& graph, Node& reader, ValueId source,
             const std::array<std::int64_t, 4>& extra) {
  const Shape& x = graph.value(reader.input(0)).shape;
  std::array<std::int64_t, 4> pads{};
  if (reader.op == OpKind::Conv) {
    pads = convParams(reader, x, graph.value(reader.input(1)).shape).pads;
  } else {
    pads = poolParams(reader, x).pads;
  }
  std::vector<std::int64_t> merged(4);
  for (std::size_t i = 0; i < 4; ++i) {
    merged[i] = pads[i] + extra[i];
  }
  reader.attributes.erase("auto_pad");
  reader.attributes.set("pads", merged);
  reader.inputs[0] = source;
}

}  // namespace

void foldPad(Graph& graph) {
  Uses uses(graph);
  std::vector<bool> removed(graph.nodes().size(), false);
  for (std::size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& pad = graph.nodes()[n];
    std::optional<std::array<std::int64_t, 4>> extra = spatialZeroPad(graph, pad);
    ValueId padded = pad.outputs.at(0);
    if (!extra || graph.isOutput(padded) || uses.consumers(padded).empty()) {
      continue;
    }
    std::span<const std::size_t> readers = uses.consumers(padded);
    bool allAccept = std::all_of(readers.begin(), readers.end(), [&](std::size_t r) {
      return acceptsPad(graph.nodes()[r], padded);
    });
    if (!allAccept) {
      continue;
    }
    ValueId source = pad.input(0);
    for (std::size_t r : readers) {
      addPads(graph, graph.nodes()[r], source, *extra);
    }
    removed[n] = true;
  }
  graph.removeNodes(removed);
}

}  // namespace npu::compiler
