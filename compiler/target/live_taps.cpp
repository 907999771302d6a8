// Live kernel taps (see live_taps.h).
#include "npu/compiler/target/live_taps.h"

namespace npu::compiler {

std::pair<std::int64_t, std::int64_t> liveTaps(std::int64_t input, std::int64_t output,
                                               std::int64_t kernel, std::int64_t stride,
                                               std::int64_t dilation, std::int64_t pad) {
  std::int64_t first = -1;
  std::int64_t last = -1;
  for (std::int64_t k = 0; k < kernel; ++k) {
    const std::int64_t lowest = k * dilation - pad;
    const std::int64_t highest = (output - 1) * stride + k * dilation - pad;
    if (highest >= 0 && lowest < input) {
      first = first < 0 ? k : first;
      last = k;
    }
  }
  return first < 0 ? std::pair<std::int64_t, std::int64_t>{0, 1}
                   : std::pair<std::int64_t, std::int64_t>{first, last - first + 1};
}

}  // namespace npu::compiler
