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

// quantizeValues is compiled for AVX-512, AVX2 and baseline x86-64, chosen at run time: the
// same double arithmetic in each, so the same bits.
#if defined(__x86_64__)
#define NPU_GOLDEN_QUANTIZE_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define NPU_GOLDEN_QUANTIZE_CLONES
#endif

NPU_GOLDEN_QUANTIZE_CLONES void quantizeValues(std::span<const float> x, const QuantParams& params,
                                               std::span<std::int8_t> out) {
  // quantizeValue's steps without branches, so the loop vectorises: a quotient beyond +-1e9 is
  // clamped there first (it ends at -128 or 127 either way), the integer part and the remainder
  // are exact in double, and NaN is selected to the zero point at the end.
  const double scale = params.scale;
  const double zeroPoint = params.zeroPoint;
  const double nanValue = std::clamp(zeroPoint, -128.0, 127.0);
  const std::size_t n = std::min(x.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double quotient = static_cast<double>(x[i]) / scale;
    const double r = std::clamp(quotient, -1e9, 1e9);
    const double whole = std::trunc(r);
    const double remainder = r - whole;
    double q = whole + (remainder >= 0.5 ? 1.0 : 0.0) - (remainder <= -0.5 ? 1.0 : 0.0) + zeroPoint;
    q = std::clamp(q, -128.0, 127.0);
    q = quotient != quotient ? nanValue : q;  // NaN
    out[i] = static_cast<std::int8_t>(static_cast<std::int32_t>(q));
  }
}

Int8Tensor quantize(const FloatTensor& x, const QuantParams& params) {
  checkConsistent(x, "quantize");
  checkQuantParams(params, "quantize");
  Int8Tensor q{x.shape, std::vector<std::int8_t>(x.data.size())};
  quantizeValues(x.data, params, q.data);
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
