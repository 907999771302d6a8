// HeadMatMul, the IR's matmul of two activations batched over heads: each operand is read from,
// and the result written into, a tensor's NHWC bytes at strides. That is how attention's head
// split and merge (Reshape/Transpose around a MatMul) become addressing: lift-token-tensors makes
// the op, the NPU runs it as CONVs whose LOADs and STOREs use the strides (docs/isa.md "MatMul on
// the MAC array"), and the interpreter and golden reference gather and scatter the same elements.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "npu/compiler/ir/attributes.h"
#include "npu/golden/float_tensor.h"

namespace npu::compiler {

/// Where each head's matrix lies in a tensor's elements in NHWC order (row-major for a token
/// tensor): element (h, row, col) at offset + h * headStride + row * rowStride + col. Columns are
/// contiguous, so a row is one DMA run.
struct MatrixView {
  std::int64_t offset = 0;
  std::int64_t headStride = 0;
  std::int64_t rowStride = 0;

  friend bool operator==(const MatrixView&, const MatrixView&) = default;
};

/// Per head h: y[m][n] = alpha * sum over k of a[m][k] * b[k][n]. b's rows are its k index (KN,
/// the operand as ONNX MatMul takes it) or its n index (NK: b already transposed, attention's K).
struct HeadMatMulGeometry {
  std::int64_t heads = 1;
  std::int64_t m = 1;
  std::int64_t k = 1;
  std::int64_t n = 1;
  MatrixView a;            ///< rows m, columns k
  MatrixView b;            ///< rows k (KN) or n (NK)
  bool bRowsAreN = false;  ///< NK
  MatrixView y;            ///< rows m, columns n

  friend bool operator==(const HeadMatMulGeometry&, const HeadMatMulGeometry&) = default;
};

/// The geometry a HeadMatMul node's attributes state (heads, m, k, n, a_view, b_view, b_nk,
/// y_view); throws Error on a missing or malformed one.
HeadMatMulGeometry headMatMulGeometry(const Attributes& attributes);

/// Writes `geometry` into a node's attributes.
void setHeadMatMulGeometry(Attributes& attributes, const HeadMatMulGeometry& geometry);

/// Checks that every head's matrices lie inside tensors of the given element counts, with
/// overflow-safe arithmetic, and that the output views cover the output exactly once. Throws
/// Error saying which view is wrong.
void checkHeadMatMulGeometry(const HeadMatMulGeometry& geometry, std::int64_t aElements,
                             std::int64_t bElements, std::int64_t yElements);

/// The `rows` x `cols` matrices of every head of `view`, as [heads][rows][cols] planes.
template <typename T>
std::vector<T> gatherPlanes(std::span<const T> elements, const MatrixView& view, std::int64_t heads,
                            std::int64_t rows, std::int64_t cols) {
  std::vector<T> planes(static_cast<std::size_t>(heads * rows * cols));
  std::size_t next = 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t base = view.offset + h * view.headStride + r * view.rowStride;
      for (std::int64_t c = 0; c < cols; ++c) {
        planes[next++] = elements[static_cast<std::size_t>(base + c)];
      }
    }
  }
  return planes;
}

/// Writes [heads][rows][cols] planes to their places in `elements`.
template <typename T>
void scatterPlanes(std::span<const T> planes, const MatrixView& view, std::int64_t heads,
                   std::int64_t rows, std::int64_t cols, std::span<T> elements) {
  std::size_t next = 0;
  for (std::int64_t h = 0; h < heads; ++h) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t base = view.offset + h * view.headStride + r * view.rowStride;
      for (std::int64_t c = 0; c < cols; ++c) {
        elements[static_cast<std::size_t>(base + c)] = planes[next++];
      }
    }
  }
}

/// The fp32 HeadMatMul of two NCHW activations (the interpreter's kernel): gathers the heads in
/// NHWC order, multiplies them with the golden fp32 matmul, scales by alpha and scatters the
/// result into an NCHW tensor of `outputShape`.
golden::FloatTensor headMatMulFloat(const golden::FloatTensor& a, const golden::FloatTensor& b,
                                    const HeadMatMulGeometry& geometry, float alpha,
                                    std::span<const std::int64_t> outputShape);

/// An NCHW tensor's elements in NHWC order, and back ([1, C] counts as [1, C, 1, 1]).
std::vector<float> nchwToNhwcOrder(const golden::FloatTensor& nchw);
golden::FloatTensor nhwcOrderToNchw(std::span<const float> nhwc,
                                    std::span<const std::int64_t> shape);

}  // namespace npu::compiler
