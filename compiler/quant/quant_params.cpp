// Range to int8 parameters.
#include "npu/compiler/quant/quant_params.h"

#include <algorithm>
#include <cmath>

namespace npu::compiler {

float powerOfTwoAtLeast(float scale) {
  return static_cast<float>(std::exp2(std::ceil(std::log2(static_cast<double>(scale)))));
}

golden::QuantParams quantParamsForRange(Range range, bool symmetric, bool powerOfTwo) {
  double lo = std::min(0.0, static_cast<double>(range.lo));
  double hi = std::max(0.0, static_cast<double>(range.hi));
  if (hi - lo <= 0.0) {
    lo = 0.0;
    hi = 1.0;
  }
  golden::QuantParams params;
  double scale = symmetric ? std::max(-lo, hi) / 127.0 : (hi - lo) / 255.0;
  params.scale = std::max(static_cast<float>(scale), kMinScale);
  if (powerOfTwo) {
    params.scale = powerOfTwoAtLeast(params.scale);
  }
  if (!symmetric) {
    double zp = std::round(-128.0 - lo / static_cast<double>(params.scale));
    params.zeroPoint = static_cast<std::int32_t>(std::clamp(zp, -128.0, 127.0));
  }
  return params;
}

golden::QuantParams powerOfTwoParamsForRange(Range range, bool symmetric,
                                             std::span<const TensorObserver* const> observers) {
  golden::QuantParams up = quantParamsForRange(range, symmetric, true);
  golden::QuantParams down =
      quantParamsForRange(Range{range.lo / 2, range.hi / 2}, symmetric, true);
  if (observers.empty() || down.scale >= up.scale) {
    return up;
  }
  double upError = 0.0;
  double downError = 0.0;
  for (const TensorObserver* o : observers) {
    upError += quantizationError(*o, up.scale, up.zeroPoint);
    downError += quantizationError(*o, down.scale, down.zeroPoint);
  }
  return downError < upError ? down : up;
}

Range representableRange(const golden::QuantParams& params) {
  return Range{static_cast<float>((-128 - params.zeroPoint) * static_cast<double>(params.scale)),
               static_cast<float>((127 - params.zeroPoint) * static_cast<double>(params.scale))};
}

}  // namespace npu::compiler
