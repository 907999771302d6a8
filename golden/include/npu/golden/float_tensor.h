// FloatTensor: the plain fp32 value type of the golden fp32 ops (row-major, ONNX layouts).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace npu::golden {

/// A dense row-major fp32 tensor. Activations are NCHW and conv weights OIHW, as in ONNX.
/// A scalar has an empty shape and one element.
struct FloatTensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;

  /// Number of dimensions.
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
};

/// Product of the dimensions (1 for an empty shape); throws Error on a negative dimension.
std::int64_t elementCount(std::span<const std::int64_t> shape);

/// Row-major strides in elements of a shape.
std::vector<std::int64_t> stridesOf(std::span<const std::int64_t> shape);

/// A tensor of the given shape filled with `value`.
FloatTensor makeFloatTensor(std::vector<std::int64_t> shape, float value = 0.0F);

/// "[1, 3, 224, 224]", for error messages.
std::string shapeString(std::span<const std::int64_t> shape);

/// Throws Error naming `op` when the data size does not match the shape.
void checkConsistent(const FloatTensor& tensor, std::string_view op);

/// Resolves a possibly negative axis against `rank` (ONNX: -rank <= axis < rank, or <= rank when
/// `allowEnd`; a negative axis counts from the end); throws Error naming `op` when out of range.
std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank, std::string_view op,
                           bool allowEnd = false);

}  // namespace npu::golden
