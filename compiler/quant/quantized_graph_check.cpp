// A quantized graph checked and printed: what the driver verifies and dumps after quantization.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "npu/compiler/ir/types.h"
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
    if (graph.tensors[id].data) {
      fail("quantized graph: input tensor '{}' is a constant", graph.tensors[id].name);
    }
    written[id] = true;
  }
  for (const QTensor& t : graph.tensors) {
    if (!t.data) {
      continue;
    }
    if (static_cast<std::int64_t>(t.data->size()) != elementCount(t.shape)) {
      fail("quantized graph: constant tensor '{}' holds {} values for shape [{}]", t.name,
           t.data->size(), fmt::join(t.shape, ", "));
    }
    written[static_cast<std::size_t>(&t - graph.tensors.data())] = true;
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
    if (graph.tensors[out].data) {
      fail("quantized graph: {} writes constant tensor '{}'", where, graph.tensors[out].name);
    }
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
  for (TensorId id = 0; id < graph.tensors.size(); ++id) {
    if (graph.tensors[id].data) {
      text += "const  " + tensorLine(id) + "\n";
    }
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
