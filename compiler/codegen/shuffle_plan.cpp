// Shuffle plans: which channel shuffles run as sub-pixel CONVs, with which sub-pixel, and
// whether they read their concat's inputs where they are and write their split's slices
// directly (docs/main-job.md, "Channel shuffle"), so that ShuffleNet's concat, shuffle and split
// are one pass of dense LOADs and STOREs.
#include "npu/compiler/codegen/shuffle_plan.h"

#include <algorithm>

#include "lowering.h"
#include "npu/isa/limits.h"
#include "npu/support/int_math.h"

namespace npu::compiler {

std::int64_t shuffleDenseSteps(const isa::NpuConfig& config, std::int64_t channels) {
  return ceilDiv(channels, config.macRows) * ceilDiv(channels, config.macCols);
}

std::optional<ShuffleLayout> chooseShuffleLayout(const isa::NpuConfig& config, std::int64_t pixels,
                                                 std::int64_t channels, std::int64_t groups,
                                                 bool groupInputs, std::int64_t parts) {
  namespace limits = isa::limits;
  if (groups < 2 || channels % groups != 0 || parts < 1 || channels % parts != 0) {
    return std::nullopt;
  }
  const std::int64_t perGroup = channels / groups;
  const std::int64_t part = channels / parts;
  // Input bytes a pixel of the tile holds per CONV row: the whole pixel, or one group's input.
  const std::int64_t inputPixel = groupInputs ? perGroup : channels;
  std::optional<ShuffleLayout> best;
  for (std::int64_t sub = 1; sub <= std::min(perGroup, limits::kTileExtent); ++sub) {
    const std::int64_t block = groups * sub;
    // Parts of whole blocks are dense in the output SRAM; others are stored out of whole pixels.
    const bool wholePixels = part % block != 0;
    const std::int64_t pitch = wholePixels ? channels : part;
    if (perGroup % sub != 0 || pitch / block - 1 > limits::kConvOutGap ||
        inputPixel / sub > limits::kConvStrideW || block > limits::kTileExtent) {
      continue;
    }
    if (groupInputs ? groups > limits::kConvKernelH
                    : groups > limits::kConvKernelW || perGroup / sub > limits::kConvDilationW) {
      continue;
    }
    // Pixels a tile: at most kTileBytes (so that a tile's STOREs overlap the next tile's
    // CONVs), the tile and one more pixel (the last block's taps start up to a group's channels
    // in) in an input half, all parts in an output half, a tile row of sub-pixels in in_w.
    constexpr std::int64_t kTileBytes = 8192;
    const std::int64_t half = std::min(config.inputSramBytes, config.outputSramBytes) / 2;
    const std::int64_t tile =
        std::min({pixels, std::max<std::int64_t>(1, kTileBytes / channels), half / channels - 1,
                  limits::kTileExtent * sub / inputPixel});
    if (tile < 1 || block * groups * sub > config.weightSramBytes / 2 ||
        12 * block > config.parameterSramBytes / 2) {
      continue;
    }
    const std::int64_t steps =
        channels / block * groups * ceilDiv(sub, config.macRows) * ceilDiv(block, config.macCols);
    if (!best || steps < best->steps || (steps == best->steps && sub > best->sub)) {
      best = ShuffleLayout{sub, tile, steps, wholePixels, false, {}, {}};
    }
  }
  // With the groups in separate tensors, the LOADs can interleave them: chunks of `sub`
  // channels of each group in turn, one CONV "pixel" of groups x sub channels a chunk, so each
  // output block takes one array step instead of one a group.
  for (std::int64_t sub = 1; groupInputs && sub <= perGroup; ++sub) {
    const std::int64_t block = groups * sub;
    const std::int64_t chunks = perGroup / sub;  // CONV pixels a shuffled pixel
    if (perGroup % sub != 0 || block > std::min(config.macRows, config.macCols) ||
        chunks > limits::kTileExtent) {
      continue;
    }
    // One array step a block leaves the tile's DMA (a latency per LOAD and STORE) the longer
    // part: larger tiles than the other layouts', of equal size so the last is not a short one.
    constexpr std::int64_t kTileBytes = 12288;
    const std::int64_t half = std::min(config.inputSramBytes, config.outputSramBytes) / 2;
    const std::int64_t most =
        std::min({pixels, std::max<std::int64_t>(1, kTileBytes / channels), half / channels,
                  limits::kTileExtent, limits::kLoadRows / chunks});
    const std::int64_t tile = most < 1 ? most : ceilDiv(pixels, ceilDiv(pixels, most));
    if (tile < 1 || block * block > config.weightSramBytes / 2 ||
        12 * block > config.parameterSramBytes / 2) {
      continue;
    }
    const std::int64_t steps = chunks;
    if (!best || steps < best->steps || (steps == best->steps && best->interleaved)) {
      best = ShuffleLayout{sub, tile, steps, true, true, {}, {}};
    }
  }
  return best;
}

ShufflePlans planShuffles(const QuantizedGraph& graph, const isa::NpuConfig& config) {
  ShufflePlans plans;
  plans.byOp.assign(graph.ops.size(), std::nullopt);
  plans.unassembled.assign(graph.tensors.size(), false);
  plans.writtenBy.assign(graph.tensors.size(), -1);
  const TensorUses uses(graph);
  const auto& producer = uses.producer;
  const auto& readers = uses.readers;
  for (std::size_t index = 0; index < graph.ops.size(); ++index) {
    const auto* shuffle = std::get_if<QShuffle>(&graph.ops[index]);
    if (shuffle == nullptr || shuffle->groups < 2) {
      continue;
    }
    const QTensor& input = graph.tensors[shuffle->input];
    if (!sameLayout(graph, shuffle->input, shuffle->output) ||
        input.shape[3] % shuffle->groups != 0) {
      continue;
    }
    const std::int64_t c = input.shape[3], perGroup = c / shuffle->groups;
    const std::int64_t pixels = input.shape[1] * input.shape[2];
    // The concat's inputs, one per group, each the group's channels: read where they are.
    std::vector<TensorId> groupInputs;
    const auto* concat =
        producer[shuffle->input] ? std::get_if<QConcat>(producer[shuffle->input]) : nullptr;
    if (concat != nullptr && concat->axis == 3 &&
        static_cast<std::int64_t>(concat->inputs.size()) == shuffle->groups &&
        readers[shuffle->input].size() == 1 && !uses.isGraphTensor(shuffle->input) &&
        std::all_of(concat->inputs.begin(), concat->inputs.end(), [&](TensorId id) {
          return sameLayout(graph, id, shuffle->input) && graph.tensors[id].shape[3] == perGroup;
        })) {
      groupInputs = concat->inputs;
    }
    // The slices that split the output in equal channel ranges covering it, in channel order.
    std::vector<const QSlice*> slices;
    for (const QOp* reader : readers[shuffle->output]) {
      const auto* slice = std::get_if<QSlice>(reader);
      if (slice == nullptr || slice->rowBegin != 0 || slice->colBegin != 0 || slice->rowStep != 1 ||
          slice->colStep != 1 || !sameLayout(graph, slice->output, shuffle->output)) {
        slices.clear();
        break;
      }
      slices.push_back(slice);
    }
    std::sort(slices.begin(), slices.end(),
              [](const QSlice* a, const QSlice* b) { return a->channelBegin < b->channelBegin; });
    std::vector<TensorId> parts;
    if (slices.size() >= 2 && !uses.isGraphTensor(shuffle->output)) {
      const auto part = static_cast<std::int64_t>(c / static_cast<std::int64_t>(slices.size()));
      bool covers = c % static_cast<std::int64_t>(slices.size()) == 0;
      for (std::size_t k = 0; k < slices.size() && covers; ++k) {
        covers = slices[k]->channelBegin == static_cast<std::int64_t>(k) * part &&
                 graph.tensors[slices[k]->output].shape[3] == part;
      }
      for (std::size_t k = 0; k < slices.size() && covers; ++k) {
        parts.push_back(slices[k]->output);
      }
    }
    // The most the graph allows that a layout fits; with neither, only where the sub-pixel
    // CONVs take fewer steps than the dense permutation.
    for (const int mode : {3, 2, 1, 0}) {
      const bool useInputs = (mode & 2) != 0;
      const bool useParts = (mode & 1) != 0;
      if ((useInputs && groupInputs.empty()) || (useParts && parts.empty())) {
        continue;
      }
      std::optional<ShuffleLayout> layout =
          chooseShuffleLayout(config, pixels, c, shuffle->groups, useInputs,
                              useParts ? static_cast<std::int64_t>(parts.size()) : 1);
      if (!layout || (mode == 0 && layout->steps >= shuffleDenseSteps(config, c) &&
                      perGroup % config.macRows != 0)) {
        continue;
      }
      if (useInputs) {
        layout->groupInputs = groupInputs;
        plans.unassembled[shuffle->input] = true;
      }
      if (useParts) {
        layout->parts = parts;
        plans.unassembled[shuffle->output] = true;
        for (const TensorId id : parts) {
          plans.writtenBy[id] = static_cast<std::int64_t>(index);
        }
      }
      plans.byOp[index] = std::move(layout);
      break;
    }
  }
  return plans;
}

}  // namespace npu::compiler
