// int8 add and mul: a broadcast walk over the output, the formulas of docs/numerics.md per element.
#include "npu/golden/int8_elementwise.h"

#include <algorithm>

#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_elementwise.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// Strides of `shape` aligned right against a rank-`rank` output, 0 along broadcast dimensions.
std::vector<std::int64_t> broadcastStrides(std::span<const std::int64_t> shape, std::size_t rank) {
  std::vector<std::int64_t> strides(rank, 0);
  const std::vector<std::int64_t> own = stridesOf(shape);
  const std::size_t offset = rank - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    strides[offset + i] = shape[i] == 1 ? 0 : own[i];
  }
  return strides;
}

/// y[i] = fn(a[ia], b[ib]) over the numpy broadcast of a and b.
template <typename Fn>
Int8Tensor broadcastBinary(const Int8Tensor& a, const Int8Tensor& b, const char* op, Fn fn) {
  checkConsistent(a, op);
  checkConsistent(b, op);
  Int8Tensor y = makeInt8Tensor(broadcastShapes(a.shape, b.shape, op));
  const std::size_t rank = y.shape.size();
  const std::vector<std::int64_t> sa = broadcastStrides(a.shape, rank);
  const std::vector<std::int64_t> sb = broadcastStrides(b.shape, rank);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t ia = 0, ib = 0;
  for (std::int8_t& out : y.data) {
    out = fn(a.data[static_cast<std::size_t>(ia)], b.data[static_cast<std::size_t>(ib)]);
    for (std::size_t d = rank; d-- > 0;) {
      ++index[d];
      ia += sa[d];
      ib += sb[d];
      if (index[d] < y.shape[d]) {
        break;
      }
      ia -= sa[d] * index[d];
      ib -= sb[d] * index[d];
      index[d] = 0;
    }
  }
  return y;
}

void checkZeroPoint(std::int32_t zp, const char* op, const char* which) {
  if (zp < -128 || zp > 127) {
    fail("{}: zero point of {} {} is outside [-128, 127]", op, which, zp);
  }
}

}  // namespace

Int8Tensor addInt8(const Int8Tensor& a, const Int8Tensor& b, const AddInt8Params& p) {
  const char* op = "addInt8";
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
    const std::int32_t sum = saturateToInt32(std::int64_t{a2} + b2);
    return finishOutput(requantize(sum, p.multiplierOut, r), p.output);
  });
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
