// Shuffle plans: which channel shuffles run as sub-pixel CONVs, and whether each reads its
// concat's inputs where they are and writes its split's slices directly (docs/main-job.md,
// "Channel shuffle").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "npu/compiler/quant/quantized_graph.h"
#include "npu/isa/npu_config.h"

namespace npu::compiler {

/// How a channel shuffle runs as sub-pixel CONVs (docs/main-job.md, "Channel shuffle"): each
/// CONV makes one block of groups x `sub` output channels of every pixel of a tile, reading `sub`
/// channels of each group as its kernel taps, and leaves room (out_gap) for the other blocks.
struct ShuffleLayout {
  std::int64_t sub = 0;
  /// Pixels a tile.
  std::int64_t tile = 0;
  /// MAC array steps a pixel, all blocks.
  std::int64_t steps = 0;
  /// The output SRAM holds the tile's whole pixels and each part is stored from there with the
  /// pixel as STORE's SRAM row stride (a part that is no whole number of blocks); otherwise
  /// each part is dense in the output SRAM.
  bool wholePixels = false;
  /// The LOADs interleave the groups' inputs in the input SRAM, `sub` channels of each group in
  /// turn (SRAM rows of `sub` bytes, groups x sub apart), so that one 1x1 CONV over chunks of
  /// groups x sub channels reads every group in one array step and writes whole dense output
  /// pixels: `sub` is then the chunk a group contributes (groupInputs only).
  bool interleaved = false;
  /// The concat's inputs (one per group) that the CONVs read where they are, so the concat is
  /// never assembled; empty: the shuffle's input.
  std::vector<TensorId> groupInputs;
  /// The slices splitting the output in equal channel ranges, in channel order, that the
  /// shuffle writes directly, so its output is never assembled; empty: its output.
  std::vector<TensorId> parts;
};

/// Every channel shuffle's plan: per op index, its layout when it runs as sub-pixel CONVs.
struct ShufflePlans {
  std::vector<std::optional<ShuffleLayout>> byOp;
  /// Per tensor: a concat or shuffle output that no op writes to DDR (the shuffle reads the
  /// concat's inputs, or writes its slices, instead); it has no expected value there.
  std::vector<bool> unassembled;
  /// Per tensor: the index of the shuffle op that writes it (a slice of its output), or -1.
  std::vector<std::int64_t> writtenBy;
};

/// MAC array steps a pixel of a shuffle as one dense 1x1 CONV whose weights are the permutation.
std::int64_t shuffleDenseSteps(const isa::NpuConfig& config, std::int64_t channels);

/// The cheapest sub-pixel layout of a shuffle of `channels` channels in `groups` groups over
/// `pixels` pixels that fits CONV's fields and the SRAMs of `config`, reading the groups from
/// separate tensors (`groupInputs`) or one, writing `parts` equal channel ranges as separate
/// tensors (1: the whole output); nullopt when none fits.
std::optional<ShuffleLayout> chooseShuffleLayout(const isa::NpuConfig& config, std::int64_t pixels,
                                                 std::int64_t channels, std::int64_t groups,
                                                 bool groupInputs, std::int64_t parts);

/// Plans every shuffle of `graph`: a layout where one fits, reading its concat's inputs where
/// the concat (of one input per group) has no other reader, writing its slices where slices
/// alone read its output and split it in equal channel ranges; with neither, only where the
/// sub-pixel CONVs beat the dense permutation.
ShufflePlans planShuffles(const QuantizedGraph& graph, const isa::NpuConfig& config);

}  // namespace npu::compiler
