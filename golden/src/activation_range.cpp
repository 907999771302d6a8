// Clip bounds of fused activations.
#include "npu/golden/activation_range.h"

#include <algorithm>

#include "npu/support/error.h"

namespace npu::golden {

ClipRange activationClipRange(FusedActivation activation, const QuantParams& out, float clipLo,
                              float clipHi) {
  checkQuantParams(out, "activationClipRange");
  ClipRange range;
  switch (activation) {
    case FusedActivation::None:
      break;
    case FusedActivation::Relu:
      range.lo = std::max(-128, out.zeroPoint);
      break;
    case FusedActivation::Relu6:
      range.lo = std::max(-128, out.zeroPoint);
      range.hi = std::min(127, quantizeValue(6.0F, out));
      break;
    case FusedActivation::Clip:
      if (clipLo > clipHi) {
        fail("activationClipRange: clip min {} is above max {}", clipLo, clipHi);
      }
      range.lo = quantizeValue(clipLo, out);
      range.hi = quantizeValue(clipHi, out);
      break;
  }
  return range;
}

}  // namespace npu::golden
