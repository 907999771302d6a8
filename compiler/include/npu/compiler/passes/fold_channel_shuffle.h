// The fold-channel-shuffle pass: foldChannelShuffle().
#pragma once

#include <cstdint>
#include <span>

#include "npu/compiler/ir/graph.h"

namespace npu::compiler {

/// Rewrites the channel shuffle exporters emit, Reshape [N, C, H, W] -> [N, g, C/g, H, W],
/// Transpose (0, 2, 1, 3, 4), Reshape back to [N, C, H, W], as one Gather of the channels
/// (output channel c' * g + i reads input channel i * C/g + c'), which the NPU runs by DMA
/// addressing (ShuffleNet units).
void foldChannelShuffle(Graph& graph);

/// The group count when `indices` are the channel order of a shuffle of `channels` channels in
/// groups of channels / g (g >= 2), else 0.
std::int64_t shuffleGroups(std::span<const std::int64_t> indices, std::int64_t channels);

}  // namespace npu::compiler
