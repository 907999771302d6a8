// fp32 Gemm and MatMul: oneDNN's sgemm (the plain i-k-j loops as its fallback).
#include "npu/golden/fp32_linear.h"

#include "npu/golden/fp32_elementwise.h"
#include "npu/support/error.h"
#include "onednn_runtime.h"

namespace npu::golden {
namespace {

/// out[M, N] += a[M, K] * b[K, N], all row-major: oneDNN's sgemm on the calling thread (it sums
/// in its own order, within the rounding bound of docs/numerics.md section 14), or the plain
/// i-k-j loops should oneDNN refuse.
void matmulAccumulate(const float* a, const float* b, float* out, std::int64_t m, std::int64_t k,
                      std::int64_t n) {
  if (m == 0 || n == 0 || k == 0) {
    return;
  }
  {
    const onednn::OneThread oneThread;
    if (dnnl::sgemm('N', 'N', m, n, k, 1.0F, a, k, b, n, 1.0F, out, n) == dnnl::status::success) {
      return;
    }
  }
  for (std::int64_t i = 0; i < m; ++i) {
    float* row = out + i * n;
    for (std::int64_t p = 0; p < k; ++p) {
      const float av = a[i * k + p];
      const float* brow = b + p * n;
      for (std::int64_t j = 0; j < n; ++j) {
        row[j] += av * brow[j];
      }
    }
  }
}

FloatTensor transpose2d(const FloatTensor& x) {
  FloatTensor t = makeFloatTensor({x.shape[1], x.shape[0]});
  for (std::int64_t i = 0; i < x.shape[0]; ++i) {
    for (std::int64_t j = 0; j < x.shape[1]; ++j) {
      t.data[static_cast<std::size_t>(j * x.shape[0] + i)] =
          x.data[static_cast<std::size_t>(i * x.shape[1] + j)];
    }
  }
  return t;
}

}  // namespace

FloatTensor gemm(const FloatTensor& a, const FloatTensor& b, const FloatTensor* c,
                 const GemmParams& params) {
  checkConsistent(a, "gemm");
  checkConsistent(b, "gemm");
  if (a.rank() != 2 || b.rank() != 2) {
    fail("gemm: A and B must be 2-D, got {} and {}", shapeString(a.shape), shapeString(b.shape));
  }
  const FloatTensor at = params.transA ? transpose2d(a) : a;
  const FloatTensor bt = params.transB ? transpose2d(b) : b;
  const std::int64_t m = at.shape[0], k = at.shape[1], n = bt.shape[1];
  if (bt.shape[0] != k) {
    fail("gemm: inner dimensions differ: A' {} and B' {}", shapeString(at.shape),
         shapeString(bt.shape));
  }
  FloatTensor y = makeFloatTensor({m, n});
  matmulAccumulate(at.data.data(), bt.data.data(), y.data.data(), m, k, n);
  for (float& v : y.data) {
    v *= params.alpha;
  }
  if (c != nullptr) {
    checkConsistent(*c, "gemm");
    const FloatTensor cb = broadcastTo(*c, y.shape, "gemm");
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      y.data[i] += params.beta * cb.data[i];
    }
  }
  return y;
}

FloatTensor matmul(const FloatTensor& a, const FloatTensor& b) {
  checkConsistent(a, "matmul");
  checkConsistent(b, "matmul");
  if (a.rank() < 1 || b.rank() < 1) {
    fail("matmul: operands must have rank >= 1, got {} and {}", shapeString(a.shape),
         shapeString(b.shape));
  }
  std::vector<std::int64_t> sa = a.shape, sb = b.shape;
  if (a.rank() == 1) {
    sa.insert(sa.begin(), 1);
  }
  if (b.rank() == 1) {
    sb.push_back(1);
  }
  const std::int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  if (sb[sb.size() - 2] != k) {
    fail("matmul: inner dimensions differ: {} and {}", shapeString(a.shape), shapeString(b.shape));
  }
  const std::vector<std::int64_t> batchA(sa.begin(), sa.end() - 2);
  const std::vector<std::int64_t> batchB(sb.begin(), sb.end() - 2);
  std::vector<std::int64_t> batch = broadcastShapes(batchA, batchB, "matmul");
  // Broadcast both operands over the batch dimensions, then run one matmul per batch entry.
  std::vector<std::int64_t> fullA = batch, fullB = batch;
  fullA.insert(fullA.end(), {m, k});
  fullB.insert(fullB.end(), {k, n});
  const FloatTensor ea = broadcastTo(FloatTensor{sa, a.data}, fullA, "matmul");
  const FloatTensor eb = broadcastTo(FloatTensor{sb, b.data}, fullB, "matmul");
  const std::int64_t batches = elementCount(batch);
  std::vector<std::int64_t> outShape = batch;
  outShape.insert(outShape.end(), {m, n});
  FloatTensor y = makeFloatTensor(outShape);
  for (std::int64_t i = 0; i < batches; ++i) {
    matmulAccumulate(ea.data.data() + i * m * k, eb.data.data() + i * k * n,
                     y.data.data() + i * m * n, m, k, n);
  }
  if (a.rank() == 1) {
    y.shape.erase(y.shape.end() - 2);
  }
  if (b.rank() == 1) {
    y.shape.pop_back();
  }
  return y;
}

}  // namespace npu::golden
