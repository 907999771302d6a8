// Concat by address: which inputs of a channel concat their producers store straight into the
// concat's output (docs/main-job.md, "Concat by address"), so the concat moves no bytes for them.
#include <algorithm>

#include "lowering.h"

namespace npu::compiler {

std::vector<std::optional<ConcatSlot>> planConcatByAddress(const QuantizedGraph& graph) {
  std::vector<std::optional<ConcatSlot>> slots(graph.tensors.size());
  std::vector<const QOp*> producer(graph.tensors.size(), nullptr);
  for (const QOp& op : graph.ops) {
    producer[opOutput(op)] = &op;
  }
  const auto isInput = [&](TensorId id) {
    return std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end();
  };
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const auto* concat = std::get_if<QConcat>(&graph.ops[index]);
    if (concat == nullptr || concat->axis != 3) {
      continue;
    }
    const QTensor& out = graph.tensors[concat->output];
    std::int64_t offset = 0;
    for (const TensorId id : concat->inputs) {
      const QTensor& in = graph.tensors[id];
      const QOp* from = producer[id];
      // Only the lowerings of convs (one by one, in a cascade or a gated project) and slices
      // store at a channel offset with a wider pixel; the bytes must be the concat's as they
      // are (shared scale and zero point), and nothing else may read them.
      const bool storesByAddress = from != nullptr && (std::holds_alternative<QConv>(*from) ||
                                                       std::holds_alternative<QSlice>(*from));
      if (storesByAddress && !in.data && !isInput(id) && singleUse(graph, id) &&
          in.scale == out.scale && in.zeroPoint == out.zeroPoint && in.shape.size() == 4 &&
          out.shape.size() == 4 && in.shape[1] == out.shape[1] && in.shape[2] == out.shape[2]) {
        slots[id] = ConcatSlot{concat->output, offset, out.shape[3], index};
      }
      offset += in.shape.size() == 4 ? in.shape[3] : 0;
    }
  }
  return slots;
}

}  // namespace npu::compiler
