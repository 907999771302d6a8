// The first-layer im2col rule (see im2col_candidate.h).
#include "npu/compiler/target/im2col_candidate.h"

#include <algorithm>

namespace npu::compiler {

bool im2colCandidate(std::int64_t channels, std::int64_t kernelH, std::int64_t kernelW,
                     std::span<const std::int64_t> strides, std::span<const std::int64_t> dilations,
                     std::span<const std::int64_t> pads, std::int64_t groups) {
  const std::int64_t columns = kernelH * kernelW * channels;
  const bool patchify =
      strides[0] == kernelH && strides[1] == kernelW && dilations[0] == 1 && dilations[1] == 1 &&
      std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; });
  return groups == 1 && channels < kIm2colMaxChannels && kernelH * kernelW > 1 &&
         columns <= (patchify ? kIm2colMaxPatchColumns : kIm2colMaxColumns);
}

}  // namespace npu::compiler
