// fp32 element-wise math: unary functions, Pow, Min/Max and PRelu on the shared element-wise walks.
#include "npu/golden/fp32_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "elementwise_kernels.h"
#include "npu/golden/fp32_elementwise.h"
#include "npu/support/error.h"

namespace npu::golden {

namespace scalar {

float unary(float x, UnaryKind kind) {
  // Transcendentals are evaluated in double and rounded once, so each result is the float
  // nearest the true value (the same choice as the activations).
  const double d = x;
  switch (kind) {
    case UnaryKind::Sqrt:
      return static_cast<float>(std::sqrt(d));
    case UnaryKind::Reciprocal:
      return 1.0F / x;
    case UnaryKind::Exp:
      return static_cast<float>(std::exp(d));
    case UnaryKind::Log:
      return static_cast<float>(std::log(d));
    case UnaryKind::Neg:
      return -x;
    case UnaryKind::Abs:
      return std::abs(x);
    case UnaryKind::Floor:
      return std::floor(x);
    case UnaryKind::Ceil:
      return std::ceil(x);
    case UnaryKind::Round:
      // nearbyint rounds half to even under the default rounding mode, as ONNX Round requires.
      return std::nearbyint(x);
    case UnaryKind::Erf:
      return static_cast<float>(std::erf(d));
    case UnaryKind::Sign:
      if (std::isnan(x)) {
        return x;
      }
      return x > 0.0F ? 1.0F : (x < 0.0F ? -1.0F : 0.0F);
    case UnaryKind::Sin:
      return static_cast<float>(std::sin(d));
    case UnaryKind::Cos:
      return static_cast<float>(std::cos(d));
    case UnaryKind::Softsign:
      return static_cast<float>(d / (1.0 + std::abs(d)));
  }
  fail("unary: unknown kind {}", static_cast<int>(kind));
}

}  // namespace scalar

FloatTensor unary(const FloatTensor& x, UnaryKind kind) {
  return detail::mapElements(x, "unary", [kind](float v) { return scalar::unary(v, kind); });
}

FloatTensor pow(const FloatTensor& a, const FloatTensor& b) {
  return detail::broadcastBinary(a, b, "pow", [](float base, float exponent) {
    return static_cast<float>(std::pow(static_cast<double>(base), static_cast<double>(exponent)));
  });
}

FloatTensor minMax(const std::vector<std::reference_wrapper<const FloatTensor>>& inputs, bool max) {
  const std::string_view op = max ? "max" : "min";
  if (inputs.empty()) {
    fail("{}: no inputs", op);
  }
  // Folding pairwise broadcasts gives the joint broadcast of all inputs.
  FloatTensor y = detail::mapElements(inputs.front().get(), op, [](float v) { return v; });
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    y = detail::broadcastBinary(y, inputs[i].get(), op, [max](float u, float v) {
      if (std::isnan(u) || std::isnan(v)) {
        return std::numeric_limits<float>::quiet_NaN();
      }
      return max ? std::max(u, v) : std::min(u, v);
    });
  }
  return y;
}

FloatTensor prelu(const FloatTensor& x, const FloatTensor& slope) {
  checkConsistent(x, "prelu");
  checkConsistent(slope, "prelu");
  // Unidirectional: the slope broadcasts to x, never x to a larger shape.
  const std::vector<std::int64_t> joint = broadcastShapes(x.shape, slope.shape, "prelu");
  if (joint != x.shape) {
    fail("prelu: slope {} cannot be broadcast to input {}", shapeString(slope.shape),
         shapeString(x.shape));
  }
  return detail::broadcastBinary(x, slope, "prelu",
                                 [](float v, float s) { return v >= 0.0F ? v : s * v; });
}

}  // namespace npu::golden
