// Int8Tensor: the plain int8 value type of the golden int8 ops (row-major, NHWC activations).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace npu::golden {

/// A dense row-major int8 tensor. The int8 ops take activations as NHWC [N, H, W, C] and conv
/// weights as OHWI [Cout, kH, kW, Cin/groups]; scales and zero points travel separately.
struct Int8Tensor {
  std::vector<std::int64_t> shape;
  std::vector<std::int8_t> data;

  /// Number of dimensions.
  std::int64_t rank() const { return static_cast<std::int64_t>(shape.size()); }
};

/// A tensor of the given shape filled with `value`.
Int8Tensor makeInt8Tensor(std::vector<std::int64_t> shape, std::int8_t value = 0);

/// Throws Error naming `op` when the data size does not match the shape.
void checkConsistent(const Int8Tensor& tensor, std::string_view op);

}  // namespace npu::golden
