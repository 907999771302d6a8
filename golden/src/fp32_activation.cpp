// fp32 activations: scalar definitions and their element-wise tensor forms.
#include "npu/golden/fp32_activation.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "elementwise_kernels.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// log(1 + exp(x)) in double, as max(x, 0) + log1p(exp(-|x|)) so exp never overflows.
double softplusOf(double x) {
  return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x)));
}

}  // namespace

namespace scalar {

float relu(float x) {
  return x > 0.0F ? x : 0.0F;
}

float clip(float x, float lo, float hi) {
  return std::min(std::max(x, lo), hi);
}

float leakyRelu(float x, float alpha) {
  return x >= 0.0F ? x : alpha * x;
}

float sigmoid(float x) {
  // Evaluated in double so the result is correctly rounded for every float input.
  return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x))));
}

float tanh(float x) {
  return static_cast<float>(std::tanh(static_cast<double>(x)));
}

float hardSigmoid(float x, float alpha, float beta) {
  return std::max(0.0F, std::min(1.0F, alpha * x + beta));
}

float hardSwish(float x) {
  return x * hardSigmoid(x, 1.0F / 6.0F, 0.5F);
}

float silu(float x) {
  const double d = x;
  return static_cast<float>(d / (1.0 + std::exp(-d)));
}

float gelu(float x) {
  const double d = x;
  return static_cast<float>(0.5 * d * (1.0 + std::erf(d / std::numbers::sqrt2)));
}

float geluTanh(float x) {
  const double d = x;
  const double inner = std::sqrt(2.0 / std::numbers::pi) * (d + 0.044715 * d * d * d);
  return static_cast<float>(0.5 * d * (1.0 + std::tanh(inner)));
}

float softplus(float x) {
  return static_cast<float>(softplusOf(x));
}

float mish(float x) {
  const double d = x;
  return static_cast<float>(d * std::tanh(softplusOf(d)));
}

}  // namespace scalar

FloatTensor relu(const FloatTensor& x) {
  return detail::mapElements(x, "relu", scalar::relu);
}

FloatTensor clip(const FloatTensor& x, float lo, float hi) {
  if (lo > hi) {
    fail("clip: min {} is above max {}", lo, hi);
  }
  return detail::mapElements(x, "clip", [=](float v) { return scalar::clip(v, lo, hi); });
}

FloatTensor leakyRelu(const FloatTensor& x, float alpha) {
  return detail::mapElements(x, "leakyRelu", [=](float v) { return scalar::leakyRelu(v, alpha); });
}

FloatTensor sigmoid(const FloatTensor& x) {
  return detail::mapElements(x, "sigmoid", scalar::sigmoid);
}

FloatTensor tanh(const FloatTensor& x) {
  return detail::mapElements(x, "tanh", scalar::tanh);
}

FloatTensor hardSigmoid(const FloatTensor& x, float alpha, float beta) {
  return detail::mapElements(x, "hardSigmoid",
                             [=](float v) { return scalar::hardSigmoid(v, alpha, beta); });
}

FloatTensor hardSwish(const FloatTensor& x) {
  return detail::mapElements(x, "hardSwish", scalar::hardSwish);
}

FloatTensor silu(const FloatTensor& x) {
  return detail::mapElements(x, "silu", scalar::silu);
}

FloatTensor gelu(const FloatTensor& x, bool tanhApproximation) {
  return detail::mapElements(x, "gelu", tanhApproximation ? scalar::geluTanh : scalar::gelu);
}

FloatTensor softplus(const FloatTensor& x) {
  return detail::mapElements(x, "softplus", scalar::softplus);
}

FloatTensor mish(const FloatTensor& x) {
  return detail::mapElements(x, "mish", scalar::mish);
}

}  // namespace npu::golden
