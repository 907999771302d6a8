// fp32 Gemm and MatMul with ONNX semantics.
#pragma once

#include "npu/golden/float_tensor.h"

namespace npu::golden {

/// Attributes of ONNX Gemm.
struct GemmParams {
  float alpha = 1.0F;
  float beta = 1.0F;
  bool transA = false;
  bool transB = false;
};

/// ONNX Gemm: Y = alpha * A' * B' + beta * C, A' = transA ? A^T : A (2-D, [M, K] after the
/// transpose), B' likewise [K, N]. C is optional (nullptr for none) and broadcast to [M, N].
FloatTensor gemm(const FloatTensor& a, const FloatTensor& b, const FloatTensor* c,
                 const GemmParams& params);

/// ONNX MatMul (numpy matmul): 1-D operands are promoted ([K] -> [1, K] for a, [K, 1] for b) and
/// the added dimension removed from the result; batch dimensions broadcast.
FloatTensor matmul(const FloatTensor& a, const FloatTensor& b);

}  // namespace npu::golden
