// A quantized graph checked and printed: what the driver verifies and dumps after quantization.
#include <fmt/format.h>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/support/error.h"

namespace npu::compiler {

void verifyQuantizedGraph(const QuantizedGraph& graph) {
  std::vector<bool> written(graph.tensors.size(), false);
  auto check = [&](TensorId id, std::string_view what, std::string_view where) {
    if (id >= graph.tensors.size()) {
      fail("quantized graph: {} {} names tensor {} of {}", where, what, id, graph.tensors.size());
    }
  };
  for (TensorId id : graph.inputs) {
    check(id, "input", "graph");
    written[id] = true;
  }
  for (const QOp& op : graph.ops) {
    const std::string where = fmt::format("op '{}'", opName(op));
    for (TensorId id : opInputs(op)) {
      check(id, "input", where);
      if (!written[id]) {
        fail("quantized graph: {} reads tensor '{}' before anything writes it", where,
             graph.tensors[id].name);
      }
    }
    TensorId out = opOutput(op);
    check(out, "output", where);
    if (written[out]) {
      fail("quantized graph: {} writes tensor '{}' a second time", where, graph.tensors[out].name);
    }
    written[out] = true;
  }
  for (TensorId id : graph.outputs) {
    check(id, "output", "graph");
    if (!written[id]) {
      fail("quantized graph: output tensor '{}' is never written", graph.tensors[id].name);
    }
  }
}

std::string dumpQuantizedGraph(const QuantizedGraph& graph) {
  std::string text;
  auto tensorLine = [&](TensorId id) {
    const QTensor& t = graph.tensors[id];
    return fmt::format("%{} '{}' [{}] scale {:.6g} zp {}", id, t.name, fmt::join(t.shape, ", "),
                       t.scale, t.zeroPoint);
  };
  for (TensorId id : graph.inputs) {
    text += "input  " + tensorLine(id) + "\n";
  }
  for (const QOp& op : graph.ops) {
    std::vector<std::string> ins;
    for (TensorId id : opInputs(op)) {
      ins.push_back(fmt::format("%{}", id));
    }
    text += fmt::format("{:<13} '{}' ({}) -> {}\n", opKindName(graph, op), opName(op),
                        fmt::join(ins, ", "), tensorLine(opOutput(op)));
  }
  for (TensorId id : graph.outputs) {
    text += fmt::format("output %{}\n", id);
  }
  return text;
}

}  // namespace npu::compiler
