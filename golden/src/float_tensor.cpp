// FloatTensor helpers: sizes, strides, shape strings and axis checks.
#include "npu/golden/float_tensor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "npu/support/error.h"

namespace npu::golden {

std::int64_t elementCount(std::span<const std::int64_t> shape) {
  std::int64_t count = 1;
  for (std::int64_t dim : shape) {
    if (dim < 0) {
      fail("negative dimension in shape {}", shapeString(shape));
    }
    count *= dim;
  }
  return count;
}

std::vector<std::int64_t> stridesOf(std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size(); i > 1; --i) {
    strides[i - 2] = strides[i - 1] * shape[i - 1];
  }
  return strides;
}

FloatTensor makeFloatTensor(std::vector<std::int64_t> shape, float value) {
  const std::int64_t count = elementCount(shape);
  return FloatTensor{std::move(shape), std::vector<float>(static_cast<std::size_t>(count), value)};
}

std::string shapeString(std::span<const std::int64_t> shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

void checkConsistent(const FloatTensor& tensor, std::string_view op) {
  const std::int64_t count = elementCount(tensor.shape);
  if (count != static_cast<std::int64_t>(tensor.data.size())) {
    fail("{}: tensor of shape {} holds {} values, expected {}", op, shapeString(tensor.shape),
         tensor.data.size(), count);
  }
}

std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank, std::string_view op,
                           bool allowEnd) {
  const std::int64_t highest = allowEnd ? rank : rank - 1;
  if (axis < -rank || axis > highest) {
    fail("{}: axis {} is out of range for rank {}", op, axis, rank);
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace npu::golden
