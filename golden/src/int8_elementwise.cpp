// int8 add and mul: a broadcast walk over the output, the formulas of docs/numerics.md per element.
#include "npu/golden/int8_elementwise.h"

#include <algorithm>

#include "elementwise_kernels.h"
#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_elementwise.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// fn(a, b) element by element with numpy broadcasting. Errors name `op`.
template <typename Fn>
Int8Tensor broadcastBinary(const Int8Tensor& a, const Int8Tensor& b, const char* op, Fn fn) {
  checkConsistent(a, op);
  checkConsistent(b, op);
  Int8Tensor y = makeInt8Tensor(broadcastShapes(a.shape, b.shape, op));
  detail::walkBroadcast(y.shape, a.shape, b.shape,
                        [&](std::size_t n, std::size_t ia, std::size_t ib) {
                          y.data[n] = fn(a.data[ia], b.data[ib]);
                        });
  return y;
}

void checkZeroPoint(std::int32_t zp, const char* op, const char* which) {
  if (zp < -128 || zp > 127) {
    fail("{}: zero point of {} {} is outside [-128, 127]", op, which, zp);
  }
}

}  // namespace

namespace {

/// Add and sub: each input rescaled to a2 and b2, `combine(a2, b2)` saturated to int32, then
/// the output stage (docs/numerics.md, "Add" and "Sub").
template <typename Combine>
Int8Tensor rescaledBinary(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& p,
                          const char* op, Combine combine) {
  checkZeroPoint(p.zeroPointA, op, "a");
  checkZeroPoint(p.zeroPointB, op, "b");
  if (p.leftShift < 0 || p.leftShift > 23) {
    fail("{}: left shift {} is outside [0, 23]", op, p.leftShift);
  }
  checkQuantizedMultiplier(p.multiplierA, op);
  checkQuantizedMultiplier(p.multiplierB, op);
  checkQuantizedMultiplier(p.multiplierOut, op);
  checkOutputStage(p.output, op);
  const Rounding r = p.output.rounding;
  return broadcastBinary(a, b, op, [&](std::int8_t va, std::int8_t vb) {
    const std::int32_t a1 = (va - p.zeroPointA) * (1 << p.leftShift);
    const std::int32_t b1 = (vb - p.zeroPointB) * (1 << p.leftShift);
    const std::int32_t a2 = requantize(a1, p.multiplierA, r);
    const std::int32_t b2 = requantize(b1, p.multiplierB, r);
    const std::int32_t s = saturateToInt32(combine(std::int64_t{a2}, std::int64_t{b2}));
    return finishOutput(requantize(s, p.multiplierOut, r), p.output);
  });
}

}  // namespace

Int8Tensor addInt8(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& p) {
  return rescaledBinary(a, b, p, "addInt8", [](std::int64_t x, std::int64_t y) { return x + y; });
}

Int8Tensor subInt8(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& p) {
  return rescaledBinary(a, b, p, "subInt8", [](std::int64_t x, std::int64_t y) { return x - y; });
}

AddInt8Params makeAddParams(const QuantParams& a, const QuantParams& b, const QuantParams& out,
                            std::int32_t leftShift) {
  checkQuantParams(a, "makeAddParams a");
  checkQuantParams(b, "makeAddParams b");
  checkQuantParams(out, "makeAddParams out");
  const double twiceMax = 2.0 * std::max<double>(a.scale, b.scale);
  AddInt8Params p;
  p.zeroPointA = a.zeroPoint;
  p.zeroPointB = b.zeroPoint;
  p.leftShift = leftShift;
  p.multiplierA = quantizeMultiplier(static_cast<double>(a.scale) / twiceMax);
  p.multiplierB = quantizeMultiplier(static_cast<double>(b.scale) / twiceMax);
  p.multiplierOut = quantizeMultiplier(
      twiceMax / (static_cast<double>(std::int64_t{1} << leftShift) * out.scale));
  p.output.zeroPoint = out.zeroPoint;
  return p;
}

Int8Tensor mulInt8(const Int8Tensor& a, const Int8Tensor& b, const MulInt8Params& p) {
  const char* op = "mulInt8";
  checkZeroPoint(p.zeroPointA, op, "a");
  checkZeroPoint(p.zeroPointB, op, "b");
  checkQuantizedMultiplier(p.multiplierOut, op);
  checkOutputStage(p.output, op);
  return broadcastBinary(a, b, op, [&](std::int8_t va, std::int8_t vb) {
    const std::int32_t product = (va - p.zeroPointA) * (vb - p.zeroPointB);
    return finishOutput(requantize(product, p.multiplierOut, p.output.rounding), p.output);
  });
}

MulInt8Params makeMulParams(const QuantParams& a, const QuantParams& b, const QuantParams& out) {
  checkQuantParams(a, "makeMulParams a");
  checkQuantParams(b, "makeMulParams b");
  checkQuantParams(out, "makeMulParams out");
  MulInt8Params p;
  p.zeroPointA = a.zeroPoint;
  p.zeroPointB = b.zeroPoint;
  p.multiplierOut = quantizeMultiplier(static_cast<double>(a.scale) * static_cast<double>(b.scale) /
                                       static_cast<double>(out.scale));
  p.output.zeroPoint = out.zeroPoint;
  return p;
}

}  // namespace npu::golden
