// From a calibrated range to int8 quantization parameters (asymmetric, symmetric, power of two).
#pragma once

#include <span>

#include "npu/compiler/quant/observer.h"
#include "npu/golden/quantize.h"

namespace npu::compiler {

/// The smallest scale handed out; a range narrower than this (an all-zero tensor) gets it.
inline constexpr float kMinScale = 1e-12F;

/// Per-tensor int8 parameters covering `range`, first widened to include 0 (so 0 is exact).
/// Asymmetric: scale = (hi - lo) / 255, zp = round(-128 - lo / scale) clamped to int8, so lo maps
/// to -128. Symmetric: scale = max(|lo|, |hi|) / 127, zp = 0. With `powerOfTwo` the scale is
/// rounded up to a power of two (the range still fits) and the asymmetric zero point follows it.
/// An empty range (all zeros) gets scale 1/255 and the zero point of [0, 1].
golden::QuantParams quantParamsForRange(Range range, bool symmetric, bool powerOfTwo);

/// Power-of-two parameters for `range`: quantParamsForRange(range, symmetric, true) (the scale
/// rounded up, the range fits) or the same for half the range (the scale one power of two lower,
/// the ends clipped), whichever quantizes the values `observers` saw with the smaller squared
/// error summed over them (quantizationError). Rounding up alone costs up to a bit of
/// resolution; the lower scale wins where the range's ends hold few values.
golden::QuantParams powerOfTwoParamsForRange(Range range, bool symmetric,
                                             std::span<const TensorObserver* const> observers);

/// The range int8 covers under `params`: [(-128 - zp) * s, (127 - zp) * s].
Range representableRange(const golden::QuantParams& params);

/// 2^ceil(log2(scale)): the smallest power of two not below a positive scale.
float powerOfTwoAtLeast(float scale);

}  // namespace npu::compiler
