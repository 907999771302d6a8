// fp32 BatchNormalization (inference) and Softmax with ONNX semantics.
#pragma once

#include <cstdint>
#include <span>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// ONNX BatchNormalization in inference mode: x [N, C, ...], each parameter holds C values;
/// y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + bias[c].
FloatTensor batchNormalization(const FloatTensor& x, std::span<const float> scale,
                               std::span<const float> bias, std::span<const float> mean,
                               std::span<const float> var, float epsilon = 1e-5F);

/// ONNX Softmax (opset 13): exp(x - max) / sum exp(x - max) along the one axis `axis` (negative
/// counts from the end). Opsets 1-12 (flatten to 2-D at axis) are expressed by the caller with a
/// reshape around this.
FloatTensor softmax(const FloatTensor& x, std::int64_t axis = -1);

}  // namespace npu::golden
