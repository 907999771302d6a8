// Slices by address: a channel slice whose only reader is a conv becomes a view of its source
// (docs/main-job.md, "Slice by address"): the conv reads the channels where they are, with the
// source's pixel stride, and the slice moves no bytes.
#include "lowering.h"

namespace npu::compiler {

std::vector<std::optional<SliceView>> planSliceViews(
    const QuantizedGraph& graph, const std::vector<std::optional<ConcatSlot>>& concatSlots,
    const ShufflePlans& shuffles) {
  std::vector<std::optional<SliceView>> views(graph.tensors.size());
  std::vector<std::size_t> readers(graph.tensors.size(), 0);
  std::vector<const QConv*> convReader(graph.tensors.size(), nullptr);
  for (const QOp& op : graph.ops) {
    for (const TensorId id : opInputs(op)) {
      ++readers[id];
    }
    if (const auto* conv = std::get_if<QConv>(&op)) {
      convReader[conv->input] = conv;
    }
  }
  for (const QOp& op : graph.ops) {
    const auto* slice = std::get_if<QSlice>(&op);
    // (A slice its shuffle writes has its own DDR space; its source is never assembled.)
    if (slice == nullptr || shuffles.writtenBy[slice->output] >= 0 || slice->rowBegin != 0 ||
        slice->colBegin != 0 || slice->rowStep != 1 || slice->colStep != 1) {
      continue;
    }
    // The reader must be a conv (whose lowerings read an input at any pixel stride) and the
    // only one; the source must own its DDR space (not itself a view or stored into a concat).
    const TensorId out = slice->output;
    const TensorId source = slice->input;
    // Only whole rows and columns: the reader's row stride is its own width times the pixel
    // stride, which is the source's only when the widths agree (a slice may also crop rows or
    // columns from 0, found in review).
    const auto& outShape = graph.tensors[out].shape;
    const auto& sourceShape = graph.tensors[source].shape;
    if (outShape.size() != 4 || sourceShape.size() != 4 || outShape[1] != sourceShape[1] ||
        outShape[2] != sourceShape[2]) {
      continue;
    }
    if (readers[out] != 1 || convReader[out] == nullptr || !singleUse(graph, out) ||
        concatSlots[out] || concatSlots[source] || views[source] || graph.tensors[source].data) {
      continue;
    }
    views[out] = SliceView{source, slice->channelBegin};
  }
  return views;
}

}  // namespace npu::compiler
