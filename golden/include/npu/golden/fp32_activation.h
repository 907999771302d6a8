// fp32 element-wise activations with ONNX semantics, as tensor ops and as scalar functions
// (the scalar forms are what the LUT builder evaluates).
#pragma once

#include <limits>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

namespace scalar {
/// max(x, 0).
float relu(float x);
/// min(max(x, lo), hi).
float clip(float x, float lo, float hi);
/// x >= 0 ? x : alpha * x.
float leakyRelu(float x, float alpha);
/// 1 / (1 + exp(-x)).
float sigmoid(float x);
/// tanh(x).
float tanh(float x);
/// max(0, min(1, alpha * x + beta)).
float hardSigmoid(float x, float alpha, float beta);
/// x * max(0, min(1, x / 6 + 0.5)) (ONNX HardSwish).
float hardSwish(float x);
/// x * sigmoid(x).
float silu(float x);
/// 0.5 * x * (1 + erf(x / sqrt(2))), the exact (erf) GELU.
float gelu(float x);
/// 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), ONNX Gelu approximate="tanh".
float geluTanh(float x);
/// log(1 + exp(x)), computed without overflow for large x (ONNX Softplus).
float softplus(float x);
/// x * tanh(softplus(x)) (ONNX Mish).
float mish(float x);
}  // namespace scalar

/// ONNX Relu.
FloatTensor relu(const FloatTensor& x);
/// ONNX Clip; absent bounds are +-infinity.
FloatTensor clip(const FloatTensor& x, float lo = -std::numeric_limits<float>::infinity(),
                 float hi = std::numeric_limits<float>::infinity());
/// ONNX LeakyRelu (default alpha 0.01).
FloatTensor leakyRelu(const FloatTensor& x, float alpha = 0.01F);
/// ONNX Sigmoid.
FloatTensor sigmoid(const FloatTensor& x);
/// ONNX Tanh.
FloatTensor tanh(const FloatTensor& x);
/// ONNX HardSigmoid (defaults alpha 0.2, beta 0.5).
FloatTensor hardSigmoid(const FloatTensor& x, float alpha = 0.2F, float beta = 0.5F);
/// ONNX HardSwish.
FloatTensor hardSwish(const FloatTensor& x);
/// SiLU / Swish: x * sigmoid(x) (ONNX exports it as Sigmoid + Mul; the frontend may fuse).
FloatTensor silu(const FloatTensor& x);
/// ONNX Gelu, approximate="none" (erf form) unless `tanhApproximation`.
FloatTensor gelu(const FloatTensor& x, bool tanhApproximation = false);
/// ONNX Softplus.
FloatTensor softplus(const FloatTensor& x);
/// ONNX Mish.
FloatTensor mish(const FloatTensor& x);

}  // namespace npu::golden
