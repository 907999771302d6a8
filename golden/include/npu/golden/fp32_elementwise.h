// fp32 element-wise binary ops (Add, Sub, Mul, Div) with numpy multidirectional broadcasting.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// The numpy broadcast of two shapes (align right, each pair equal or one of them 1); throws
/// Error naming `op` when they are incompatible.
std::vector<std::int64_t> broadcastShapes(std::span<const std::int64_t> a,
                                          std::span<const std::int64_t> b, std::string_view op);

/// Copies `x` broadcast to `shape` (which must be a broadcast of x's shape).
FloatTensor broadcastTo(const FloatTensor& x, std::span<const std::int64_t> shape,
                        std::string_view op);

/// ONNX Add: a + b, broadcast.
FloatTensor add(const FloatTensor& a, const FloatTensor& b);
/// ONNX Sub: a - b, broadcast.
FloatTensor sub(const FloatTensor& a, const FloatTensor& b);
/// ONNX Mul: a * b, broadcast.
FloatTensor mul(const FloatTensor& a, const FloatTensor& b);
/// ONNX Div: a / b, broadcast (IEEE division, no check for zero).
FloatTensor div(const FloatTensor& a, const FloatTensor& b);

}  // namespace npu::golden
