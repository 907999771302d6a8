// fp32 MaxPool, AveragePool and the global pools with ONNX semantics on NCHW tensors.
#pragma once

#include <array>
#include <cstdint>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// Attributes of ONNX MaxPool / AveragePool for 2-D windows (auto_pad resolved by the caller).
struct Pool2dParams {
  /// Window height, width.
  std::array<std::int64_t, 2> kernel{1, 1};
  std::array<std::int64_t, 2> strides{1, 1};
  std::array<std::int64_t, 2> dilations{1, 1};
  /// ONNX order: top, left, bottom, right.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  /// Output size rounds up instead of down; a window that would start in the end padding is
  /// dropped (PyTorch and onnxruntime behaviour).
  bool ceilMode = false;
  /// AveragePool only: padding positions count in the divisor.
  bool countIncludePad = false;
};

/// Pooled size along one axis: (in + padBegin + padEnd - dilation*(kernel-1) - 1) / stride + 1,
/// rounded down, or up in ceil mode, and then reduced by one when the last window would start at
/// or after in + padBegin. Throws Error when the window does not fit.
std::int64_t pooledSize(std::int64_t in, std::int64_t kernel, std::int64_t stride,
                        std::int64_t dilation, std::int64_t padBegin, std::int64_t padEnd,
                        bool ceilMode);

/// ONNX MaxPool on x [N, C, H, W]: the maximum of the window positions inside the input
/// (padding never wins).
FloatTensor maxPool2d(const FloatTensor& x, const Pool2dParams& params);

/// ONNX AveragePool on x [N, C, H, W]: the sum of the window positions inside the input divided
/// by their count, or, with countIncludePad, by the count of window positions inside the padded
/// input (positions past the end padding, which only ceil mode creates, never count).
FloatTensor averagePool2d(const FloatTensor& x, const Pool2dParams& params);

/// ONNX GlobalAveragePool: x [N, C, d1, d2, ...] -> [N, C, 1, 1, ...], mean of each plane.
FloatTensor globalAveragePool(const FloatTensor& x);

/// ONNX GlobalMaxPool: x [N, C, d1, d2, ...] -> [N, C, 1, 1, ...], max of each plane.
FloatTensor globalMaxPool(const FloatTensor& x);

}  // namespace npu::golden
