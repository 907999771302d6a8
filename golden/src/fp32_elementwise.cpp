// fp32 broadcast binary ops on the shared odometer walk of elementwise_kernels.h.
#include "npu/golden/fp32_elementwise.h"

#include <algorithm>

#include "elementwise_kernels.h"
#include "npu/support/error.h"

namespace npu::golden {
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
  return detail::broadcastBinary(x, zeros, op, [](float v, float) { return v; });
}

FloatTensor add(const FloatTensor& a, const FloatTensor& b) {
  return detail::broadcastBinary(a, b, "add", [](float x, float y) { return x + y; });
}

FloatTensor sub(const FloatTensor& a, const FloatTensor& b) {
  return detail::broadcastBinary(a, b, "sub", [](float x, float y) { return x - y; });
}

FloatTensor mul(const FloatTensor& a, const FloatTensor& b) {
  return detail::broadcastBinary(a, b, "mul", [](float x, float y) { return x * y; });
}

FloatTensor div(const FloatTensor& a, const FloatTensor& b) {
  return detail::broadcastBinary(a, b, "div", [](float x, float y) { return x / y; });
}

}  // namespace npu::golden
