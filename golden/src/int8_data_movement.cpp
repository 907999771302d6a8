// int8 byte moves. Each goes through its fp32 twin: int8 values are exact in float and these ops
// only copy values, so the result is the same bytes, with one definition of each index rule.
#include "npu/golden/int8_data_movement.h"

#include "npu/golden/float_tensor.h"
#include "npu/golden/fp32_shape.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

FloatTensor widen(const Int8Tensor& x, const char* op) {
  checkConsistent(x, op);
  return FloatTensor{x.shape, std::vector<float>(x.data.begin(), x.data.end())};
}

Int8Tensor narrow(const FloatTensor& x) {
  Int8Tensor y{x.shape, std::vector<std::int8_t>(x.data.size())};
  for (std::size_t i = 0; i < x.data.size(); ++i) {
    y.data[i] = static_cast<std::int8_t>(x.data[i]);
  }
  return y;
}

}  // namespace

Int8Tensor concatInt8(const std::vector<std::reference_wrapper<const Int8Tensor>>& inputs,
                      std::int64_t axis) {
  std::vector<FloatTensor> wide;
  wide.reserve(inputs.size());
  for (const Int8Tensor& in : inputs) {
    wide.push_back(widen(in, "concatInt8"));
  }
  return narrow(concat({wide.begin(), wide.end()}, axis));
}

Int8Tensor sliceInt8(const Int8Tensor& x, std::int64_t axis, std::int64_t begin, std::int64_t count,
                     std::int64_t step) {
  checkConsistent(x, "sliceInt8");
  axis = normalizeAxis(axis, x.rank(), "sliceInt8");
  const std::int64_t dim = x.shape[static_cast<std::size_t>(axis)];
  if (step < 1 || begin < 0 || count < 0 || (count > 0 && begin + (count - 1) * step >= dim)) {
    fail("sliceInt8: {} entries from {} every {} leave axis {} of size {}", count, begin, step,
         axis, dim);
  }
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::int64_t d = 0; d < x.rank(); ++d) {
    (d < axis ? outer : inner) *= d == axis ? 1 : x.shape[static_cast<std::size_t>(d)];
  }
  Int8Tensor y;
  y.shape = x.shape;
  y.shape[static_cast<std::size_t>(axis)] = count;
  y.data.reserve(static_cast<std::size_t>(outer * count * inner));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < count; ++i) {
      const auto first = x.data.begin() + (o * dim + begin + i * step) * inner;
      y.data.insert(y.data.end(), first, first + inner);
    }
  }
  return y;
}

Int8Tensor shuffleChannelsInt8(const Int8Tensor& x, std::int64_t groups) {
  checkConsistent(x, "shuffleChannelsInt8");
  if (x.rank() != 4 || groups < 1 || x.shape[3] % groups != 0) {
    fail("shuffleChannelsInt8: needs NHWC input with channels divisible by {}, got {}", groups,
         shapeString(x.shape));
  }
  const std::vector<std::int64_t> grouped{x.shape[0], x.shape[1], x.shape[2], groups,
                                          x.shape[3] / groups};
  const std::vector<std::int64_t> perm{0, 1, 2, 4, 3};
  return reshapeInt8(transposeInt8(reshapeInt8(x, grouped), perm), x.shape);
}

Int8Tensor resizeNearestInt8(const Int8Tensor& x, const ResizeParams& params) {
  return narrow(resizeNearest(widen(x, "resizeNearestInt8"), params));
}

Int8Tensor upsampleNearestInt8(const Int8Tensor& x, std::int64_t factorH, std::int64_t factorW) {
  checkConsistent(x, "upsampleNearestInt8");
  if (x.rank() != 4 || factorH < 1 || factorW < 1) {
    fail("upsampleNearestInt8: needs NHWC input and factors >= 1, got {} by {}x{}",
         shapeString(x.shape), factorH, factorW);
  }
  ResizeParams p;
  p.sizes = {x.shape[0], x.shape[1] * factorH, x.shape[2] * factorW, x.shape[3]};
  p.coordinateTransform = CoordinateTransform::Asymmetric;
  p.nearestMode = NearestMode::Floor;
  return resizeNearestInt8(x, p);
}

Int8Tensor padInt8(const Int8Tensor& x, std::span<const std::int64_t> pads, std::int8_t value) {
  return narrow(pad(widen(x, "padInt8"), pads, PadMode::Constant, value));
}

Int8Tensor reshapeInt8(const Int8Tensor& x, std::span<const std::int64_t> shape) {
  checkConsistent(x, "reshapeInt8");
  return Int8Tensor{reshapedShape(x.shape, shape), x.data};
}

Int8Tensor transposeInt8(const Int8Tensor& x, std::span<const std::int64_t> perm) {
  return narrow(transpose(widen(x, "transposeInt8"), perm));
}

}  // namespace npu::golden
