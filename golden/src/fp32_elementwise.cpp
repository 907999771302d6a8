// fp32 broadcast binary ops: one odometer walk over the output with per-input strides.
#include "npu/golden/fp32_elementwise.h"

#include <algorithm>

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

template <typename Fn>
FloatTensor binary(const FloatTensor& a, const FloatTensor& b, std::string_view op, Fn fn) {
  checkConsistent(a, op);
  checkConsistent(b, op);
  FloatTensor y = makeFloatTensor(broadcastShapes(a.shape, b.shape, op));
  const std::size_t rank = y.shape.size();
  if (a.shape == b.shape) {
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      y.data[i] = fn(a.data[i], b.data[i]);
    }
    return y;
  }
  const std::vector<std::int64_t> sa = broadcastStrides(a.shape, rank);
  const std::vector<std::int64_t> sb = broadcastStrides(b.shape, rank);
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t ia = 0, ib = 0;
  for (float& out : y.data) {
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

}  // namespace

std::vector<std::int64_t> broadcastShapes(std::span<const std::int64_t> a,
                                          std::span<const std::int64_t> b, std::string_view op) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(rank, 1);
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail("{}: shapes {} and {} do not broadcast", op, shapeString(a), shapeString(b));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

FloatTensor broadcastTo(const FloatTensor& x, std::span<const std::int64_t> shape,
                        std::string_view op) {
  const std::vector<std::int64_t> joint = broadcastShapes(x.shape, shape, op);
  if (!std::equal(joint.begin(), joint.end(), shape.begin(), shape.end())) {
    fail("{}: shape {} cannot be broadcast to {}", op, shapeString(x.shape), shapeString(shape));
  }
  const FloatTensor zeros = makeFloatTensor({shape.begin(), shape.end()});
  return binary(x, zeros, op, [](float v, float) { return v; });
}

FloatTensor add(const FloatTensor& a, const FloatTensor& b) {
  return binary(a, b, "add", [](float x, float y) { return x + y; });
}

FloatTensor sub(const FloatTensor& a, const FloatTensor& b) {
  return binary(a, b, "sub", [](float x, float y) { return x - y; });
}

FloatTensor mul(const FloatTensor& a, const FloatTensor& b) {
  return binary(a, b, "mul", [](float x, float y) { return x * y; });
}

FloatTensor div(const FloatTensor& a, const FloatTensor& b) {
  return binary(a, b, "div", [](float x, float y) { return x / y; });
}

}  // namespace npu::golden
