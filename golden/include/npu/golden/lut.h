// 256-entry int8 lookup tables for non-linear activations: builder and apply.
#pragma once

#include <array>
#include <cstdint>
#include <functional>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/quantize.h"

namespace npu::golden {

/// Entry i is the output for the int8 input value i - 128.
using Lut = std::array<std::int8_t, 256>;

/// LUT[i] = quantizeValue(f((i - 128 - zp_in) * s_in), out), the input computed in double and
/// passed to f as float. The compiler builds every LUT with this, so the NPU, the golden
/// reference and the RTL share the bytes and do not depend on libm.
Lut buildLut(const std::function<float(float)>& f, const QuantParams& in, const QuantParams& out);

/// The table value for an int8 input: LUT[v + 128].
inline std::int8_t lookUp(const Lut& lut, std::int32_t v) {
  return lut[static_cast<std::size_t>(v + 128)];
}

/// y = LUT[x + 128] element-wise; the shape is kept.
Int8Tensor applyLut(const Int8Tensor& x, const Lut& lut);

}  // namespace npu::golden
