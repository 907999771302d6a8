// Float <-> int8 conversion: round half away from zero, in double.
#include "npu/golden/quantize.h"

#include <algorithm>
#include <cmath>

#include "npu/support/error.h"

namespace npu::golden {

void checkQuantParams(const QuantParams& params, const char* what) {
  if (!(params.scale > 0.0F) || !std::isfinite(params.scale)) {
    fail("{}: scale {} must be positive and finite", what, params.scale);
  }
  if (params.zeroPoint < -128 || params.zeroPoint > 127) {
    fail("{}: zero point {} is outside [-128, 127]", what, params.zeroPoint);
  }
}

std::int32_t quantizeValue(float x, const QuantParams& params, std::int32_t lo, std::int32_t hi) {
  if (std::isnan(x)) {
    return std::clamp(params.zeroPoint, lo, hi);
  }
  const double r = static_cast<double>(x) / static_cast<double>(params.scale);
  if (r > -1e9 && r < 1e9) {
    // std::round without the library call (this runs per element at every quantized border):
    // truncate, then step away from zero when the exact remainder is at least one half.
    auto q = static_cast<std::int64_t>(r);
    const double remainder = r - static_cast<double>(q);
    q += remainder >= 0.5 ? 1 : (remainder <= -0.5 ? -1 : 0);
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(q + params.zeroPoint, lo, hi));
  }
  // Clamp in double first so that huge quotients and infinities convert safely.
  const double q = std::round(r) + static_cast<double>(params.zeroPoint);
  return static_cast<std::int32_t>(std::clamp(q, static_cast<double>(lo), static_cast<double>(hi)));
}

float dequantizeValue(std::int32_t q, const QuantParams& params) {
  return static_cast<float>(q - params.zeroPoint) * params.scale;
}

Int8Tensor quantize(const FloatTensor& x, const QuantParams& params) {
  checkConsistent(x, "quantize");
  checkQuantParams(params, "quantize");
  Int8Tensor q{x.shape, std::vector<std::int8_t>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    q.data[i] = static_cast<std::int8_t>(quantizeValue(x.data[i], params));
  }
  return q;
}

FloatTensor dequantize(const Int8Tensor& q, const QuantParams& params) {
  checkConsistent(q, "dequantize");
  checkQuantParams(params, "dequantize");
  FloatTensor x{q.shape, std::vector<float>(q.data.size())};
  for (std::size_t i = 0; i < q.data.size(); ++i) {
    x.data[i] = dequantizeValue(q.data[i], params);
  }
  return x;
}

}  // namespace npu::golden
