// Weight quantization: symmetric int8 in [-127, 127] per output channel (or per tensor), OIHW
// fp32 to OHWI int8, and the int32 bias at s_in * s_w[c].
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npu/compiler/ir/graph.h"
#include "npu/compiler/ir/types.h"
#include "npu/compiler/quant/quant_config.h"
#include "npu/golden/int8_tensor.h"

namespace npu::compiler {

/// A conv's quantized parameters and how much the weights lost.
struct QuantizedConvWeights {
  /// OHWI [M, kH, kW, C/group], values in [-127, 127].
  golden::Int8Tensor weights;
  /// s_w[c], one per output channel (all equal for per-tensor weights).
  std::vector<float> scales;
  /// round(b[c] / (s_in * s_w[c])), saturated to int32.
  std::vector<std::int32_t> bias;
  /// 10 log10(sum w^2 / sum (w - s_w * q)^2) over all weights; +infinity when exact.
  double sqnrDb = 0.0;
  /// Largest over smallest per-channel max|w| (channels that are all zero ignored): how much a
  /// single per-tensor scale would cost.
  double channelRangeRatio = 1.0;
};

/// Quantizes conv weights `oihw` of shape [M, C/group, kH, kW] with `bias` (empty for none) for
/// an input of scale `inputScale`. Per channel (default) s_w[c] = t[c] / 127 with t[c] = max|w|
/// (minmax) or the threshold among 50-100% of it with the least squared error (mse); per tensor
/// one t for all. A power-of-two scale is the power of two just above t / 127, or the one below
/// when that quantizes the group's weights with a smaller squared error. A scale too small for the
/// bias to fit in 2^30 is raised so it fits; an all-zero channel without bias gets scale 1.
QuantizedConvWeights quantizeConvWeights(std::span<const float> oihw, const Shape& shape,
                                         std::span<const float> bias, float inputScale,
                                         const WeightSettings& settings);

/// Conv weights with given quantization (a QDQ model's, Value::quant of the weight): the int8
/// values are recovered from the dequantized floats as q = round(w / s_w[c]) (exact, since
/// w = (q - zp) * s_w), so the scales are honoured exactly; the bias is round(b / (s_in * s_w[c])).
/// Returns nullopt with `why` set when the given parameters cannot be honoured: they are per axis
/// along another axis than the output channels, their count does not match, the weights are no
/// longer on the given grid (a front-end pass rewrote them), or a non-zero weight zero point
/// leaves q - zp outside int8. A zero point whose q - zp fits int8 is folded into the weights
/// (`folded` set).
std::optional<QuantizedConvWeights> quantizeConvWeightsGiven(
    std::span<const float> oihw, const Shape& shape, std::span<const float> bias, float inputScale,
    const QuantParams& given, std::string& why, bool& folded);

}  // namespace npu::compiler
