// Which convs the NPU runs as a 1x1 conv over im2col columns the host lays out (codegen's
// first-layer im2col, codegen/input_im2col.h): a rule both the partition and codegen read.
#pragma once

#include <cstdint>
#include <span>

namespace npu::compiler {

/// Convs with fewer input channels than this are candidates.
inline constexpr std::int64_t kIm2colMaxChannels = 8;
/// ... as long as the im2col channel count stays within this,
inline constexpr std::int64_t kIm2colMaxColumns = 256;
/// or this for a patchify conv (kernel = stride, no padding or dilation: a ViT's patch
/// embedding), whose windows do not overlap, so the im2col input is the input's own bytes.
inline constexpr std::int64_t kIm2colMaxPatchColumns = 1024;

/// True when a conv with these OHWI weights and parameters, reading a graph input of `channels`
/// channels that nothing else reads, becomes a 1x1 conv over im2col columns. Its strides then
/// do not reach the CONV's fields, which is how a patch embedding's stride 16 runs on the NPU.
bool im2colCandidate(std::int64_t channels, std::int64_t kernelH, std::int64_t kernelW,
                     std::span<const std::int64_t> strides, std::span<const std::int64_t> dilations,
                     std::span<const std::int64_t> pads, std::int64_t groups);

}  // namespace npu::compiler
