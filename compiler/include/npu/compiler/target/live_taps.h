// The kernel taps of a convolution that read its input map at all: what the NPU computes and what
// the reports count as MACs.
#pragma once

#include <cstdint>
#include <utility>

namespace npu::compiler {

/// The kernel taps [first, first + count) along one axis that read at least one input position
/// for some output: the others read only padding, whose bytes are the zero point and add nothing
/// (a dilation as large as the map, as in DeepLab's ASPP on small maps, leaves only the centre
/// tap). Codegen drops the others; at least one tap is kept.
std::pair<std::int64_t, std::int64_t> liveTaps(std::int64_t input, std::int64_t output,
                                               std::int64_t kernel, std::int64_t stride,
                                               std::int64_t dilation, std::int64_t pad);

}  // namespace npu::compiler
