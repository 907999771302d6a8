// int8 element-wise add, sub and mul with per-input rescale (TFLite scheme), numpy broadcasting.
#pragma once

#include <cstdint>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/quantize.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// Parameters of an int8 add (docs/numerics.md, "Add").
struct AddInt8Params {
  std::int32_t zeroPointA = 0;
  std::int32_t zeroPointB = 0;
  /// Inputs are shifted left by this before their rescale (TFLite: 20; at most 23).
  std::int32_t leftShift = 20;
  QuantizedMultiplier multiplierA;
  QuantizedMultiplier multiplierB;
  QuantizedMultiplier multiplierOut;
  OutputStage output;
};

/// a2 = requant((a - zp_a) << leftShift, M_a); b2 likewise; s = sat32(a2 + b2);
/// y = finishOutput(requant(s, M_out)). Shapes broadcast as in numpy.
Int8Tensor addInt8(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& params);

/// The same with the difference: s = sat32(a2 - b2) (docs/numerics.md, "Sub"); the parameters
/// are an add's (makeAddParams).
Int8Tensor subInt8(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& params);

/// TFLite's add multipliers: twice_max = 2 * max(s_a, s_b); M_a = Q(s_a / twice_max),
/// M_b = Q(s_b / twice_max), M_out = Q(twice_max / (2^leftShift * s_out)), Q = quantizeMultiplier,
/// all in double. The output stage gets out's zero point; clip and LUT are left at their defaults.
AddInt8Params makeAddParams(const QuantParams& a, const QuantParams& b, const QuantParams& out,
                            std::int32_t leftShift = 20);

/// Parameters of an int8 mul (docs/numerics.md, "Mul").
struct MulInt8Params {
  std::int32_t zeroPointA = 0;
  std::int32_t zeroPointB = 0;
  QuantizedMultiplier multiplierOut;
  OutputStage output;
};

/// p = (a - zp_a) * (b - zp_b); y = finishOutput(requant(p, M_out)). Shapes broadcast.
Int8Tensor mulInt8(const Int8Tensor& a, const Int8Tensor& b, const MulInt8Params& params);

/// TFLite's mul multiplier: M_out = quantizeMultiplier(s_a * s_b / s_out) in double.
MulInt8Params makeMulParams(const QuantParams& a, const QuantParams& b, const QuantParams& out);

}  // namespace npu::golden
