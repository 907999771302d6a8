// fp32 element-wise math with ONNX semantics: unary functions (Sqrt, Exp, Log, ...), Pow,
// Min/Max and PRelu.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// An ONNX unary function applied element by element.
enum class UnaryKind : std::uint8_t {
  Sqrt,        ///< sqrt(x); NaN below 0
  Reciprocal,  ///< 1 / x
  Exp,         ///< exp(x)
  Log,         ///< natural log; -inf at 0, NaN below 0
  Neg,         ///< -x
  Abs,         ///< |x|
  Floor,       ///< floor(x)
  Ceil,        ///< ceil(x)
  Round,       ///< round half to even (ONNX Round)
  Erf,         ///< erf(x)
  Sign,        ///< -1, 0 or 1
  Sin,         ///< sin(x)
  Cos,         ///< cos(x)
  Softsign,    ///< x / (1 + |x|)
};

namespace scalar {
/// One element of unary().
float unary(float x, UnaryKind kind);
}  // namespace scalar

/// ONNX Sqrt, Reciprocal, Exp, ...: `kind` applied to every element.
FloatTensor unary(const FloatTensor& x, UnaryKind kind);

/// ONNX Pow: a^b with numpy broadcasting (std::pow semantics).
FloatTensor pow(const FloatTensor& a, const FloatTensor& b);

/// ONNX Min (`max` false) or Max over one or more inputs, broadcast together; NaN propagates.
FloatTensor minMax(const std::vector<std::reference_wrapper<const FloatTensor>>& inputs, bool max);

/// ONNX PRelu: x >= 0 ? x : slope * x, slope broadcast to x (unidirectionally; the usual slope is
/// [C, 1, 1] or [1, C, 1, 1] for NCHW x).
FloatTensor prelu(const FloatTensor& x, const FloatTensor& slope);

}  // namespace npu::golden
