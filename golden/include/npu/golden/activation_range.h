// Clip bounds that carry a fused ReLU / ReLU6 / Clip into the int8 output stage.
#pragma once

#include <cstdint>

#include "npu/golden/quantize.h"

namespace npu::golden {

/// The activation fused into a conv, FC, add or mul.
enum class FusedActivation : std::uint8_t { None, Relu, Relu6, Clip };

/// Inclusive int8 output bounds.
struct ClipRange {
  std::int32_t lo = -128;
  std::int32_t hi = 127;

  friend bool operator==(const ClipRange&, const ClipRange&) = default;
};

/// Bounds for the output quantization `out`: None -> [-128, 127]; Relu -> [max(-128, zp), 127];
/// Relu6 -> [max(-128, zp), min(127, Q(6))]; Clip -> [Q(clipLo), Q(clipHi)], Q = quantizeValue.
/// Throws Error when the range is empty.
ClipRange activationClipRange(FusedActivation activation, const QuantParams& out,
                              float clipLo = 0.0F, float clipHi = 0.0F);

}  // namespace npu::golden
