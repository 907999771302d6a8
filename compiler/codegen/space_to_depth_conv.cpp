// Space-to-depth as one conv (see space_to_depth_conv.h).
#include "npu/compiler/codegen/space_to_depth_conv.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <optional>

namespace npu::compiler {
namespace {

/// The phase (row, column offset) of slice `id`'s producer when it is a stride-2 slice of
/// whole pixels of `source` (set by the first one), read by nothing but the concat.
std::optional<std::array<std::int64_t, 2>> phaseOf(const QuantizedGraph& graph,
                                                   const std::vector<std::size_t>& producer,
                                                   const std::vector<int>& readers, TensorId id,
                                                   std::optional<TensorId>& source) {
  if (producer[id] == graph.ops.size() || readers[id] != 1 ||
      std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end()) {
    return std::nullopt;
  }
  const auto* slice = std::get_if<QSlice>(&graph.ops[producer[id]]);
  if (slice == nullptr || slice->rowStep != 2 || slice->colStep != 2 || slice->channelBegin != 0 ||
      slice->rowBegin > 1 || slice->colBegin > 1 || (source && *source != slice->input)) {
    return std::nullopt;
  }
  const auto& in = graph.tensors[slice->input].shape;
  const auto& out = graph.tensors[id].shape;
  if (in.size() != 4 || out.size() != 4 || in[1] % 2 != 0 || in[2] % 2 != 0 ||
      out[1] != in[1] / 2 || out[2] != in[2] / 2 || out[3] != in[3] ||
      graph.tensors[id].scale != graph.tensors[slice->input].scale ||
      graph.tensors[id].zeroPoint != graph.tensors[slice->input].zeroPoint) {
    return std::nullopt;
  }
  source = slice->input;
  return std::array<std::int64_t, 2>{slice->rowBegin, slice->colBegin};
}

}  // namespace

std::vector<std::size_t> spaceToDepthAsConv(QuantizedGraph& graph) {
  std::vector<std::size_t> producer(graph.tensors.size(), graph.ops.size());
  std::vector<int> readers(graph.tensors.size(), 0);
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    producer[opOutput(graph.ops[i])] = i;
    for (const TensorId id : opInputs(graph.ops[i])) {
      ++readers[id];
    }
  }
  std::vector<bool> removed(graph.ops.size(), false);
  for (QOp& op : graph.ops) {
    const auto* concat = std::get_if<QConcat>(&op);
    if (concat == nullptr || concat->axis != 3 || concat->inputs.size() != 4) {
      continue;
    }
    std::optional<TensorId> source;
    std::vector<std::array<std::int64_t, 2>> phases;
    for (const TensorId id : concat->inputs) {
      if (const auto phase = phaseOf(graph, producer, readers, id, source)) {
        phases.push_back(*phase);
      }
    }
    std::vector<std::array<std::int64_t, 2>> distinct = phases;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    const QTensor& output = graph.tensors[concat->output];
    if (phases.size() != 4 || distinct.size() != 4 ||
        output.scale != graph.tensors[*source].scale ||
        output.zeroPoint != graph.tensors[*source].zeroPoint) {
      continue;
    }
    // Output channel k * C + c reads tap (phase k) channel c with weight 1.
    const std::int64_t c = graph.tensors[*source].shape[3];
    QConv conv;
    conv.name = concat->name;
    conv.input = *source;
    conv.output = concat->output;
    conv.weights = golden::makeInt8Tensor({4 * c, 2, 2, c}, 0);
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const std::int64_t o = static_cast<std::int64_t>(k) * c + ch;
        conv.weights
            .data[static_cast<std::size_t>(((o * 2 + phases[k][0]) * 2 + phases[k][1]) * c + ch)] =
            1;
      }
    }
    conv.params = bytePlacingParams(4 * c, output.zeroPoint);
    conv.params.strides = {2, 2};
    conv.movesBytes = true;
    for (const TensorId id : concat->inputs) {
      removed[producer[id]] = true;
    }
    op = conv;
  }
  std::vector<QOp> kept;
  std::vector<std::size_t> origin;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    if (!removed[i]) {
      kept.push_back(std::move(graph.ops[i]));
      origin.push_back(i);
    }
  }
  graph.ops = std::move(kept);
  return origin;
}

}  // namespace npu::compiler
