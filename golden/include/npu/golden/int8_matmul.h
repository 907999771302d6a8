// int8 batched matrix multiply of two activation tensors (attention's Q x K^T and P x V).
#pragma once

#include <cstdint>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// How the second operand of a matmul is laid out in memory.
enum class MatMulLayout : std::uint8_t {
  KN,  ///< b is [..., K, N]: the ONNX MatMul operand as it stands (V in P x V)
  NK,  ///< b is [..., N, K]: b already transposed (K in Q x K^T)
};

/// Parameters of an int8 matmul (docs/numerics.md, "MatMul of two activations").
struct MatMulInt8Params {
  std::int32_t zeroPointA = 0;
  std::int32_t zeroPointB = 0;
  MatMulLayout layoutB = MatMulLayout::KN;
  /// s_a * s_b / s_out, one per tensor (both operands are per-tensor activations).
  QuantizedMultiplier multiplier;
  OutputStage output;
};

/// y[..., m, n] = finishOutput(requant(acc, multiplier)) with
/// acc = sum over k of (a[..., m, k] - zp_a) * (b'[..., k, n] - zp_b), b' = b or its transpose by
/// `layoutB`, summed in int64 and wrapped to int32 (as the NPU's accumulator wraps). a and b have
/// rank >= 2 and equal leading (batch) dimensions; no bias. Throws Error on shape mismatches and
/// out-of-range parameters.
Int8Tensor matMulInt8(const Int8Tensor& a, const Int8Tensor& b, const MatMulInt8Params& params);

}  // namespace npu::golden
