// int8 matmul of two activations: three plain loops per batch over the formula of docs/numerics.md.
#include "npu/golden/int8_matmul.h"

#include <fmt/format.h>

#include "npu/support/error.h"

namespace npu::golden {

Int8Tensor matMulInt8(const Int8Tensor& a, const Int8Tensor& b, const MatMulInt8Params& p) {
  const char* op = "matMulInt8";
  checkConsistent(a, op);
  checkConsistent(b, op);
  if (a.rank() < 2 || b.rank() != a.rank()) {
    fail("{}: operands need equal ranks of at least 2, got {} and {}", op, a.rank(), b.rank());
  }
  for (const std::int32_t zp : {p.zeroPointA, p.zeroPointB}) {
    if (zp < -128 || zp > 127) {
      fail("{}: zero point {} is outside [-128, 127]", op, zp);
    }
  }
  checkQuantizedMultiplier(p.multiplier, op);
  checkOutputStage(p.output, op);
  const auto r = static_cast<std::size_t>(a.rank());
  std::int64_t batches = 1;
  for (std::size_t d = 0; d + 2 < r; ++d) {
    if (a.shape[d] != b.shape[d]) {
      fail("{}: batch dimension {} differs: {} and {}", op, d, a.shape[d], b.shape[d]);
    }
    batches *= a.shape[d];
  }
  const std::int64_t m = a.shape[r - 2];
  const std::int64_t k = a.shape[r - 1];
  const bool kn = p.layoutB == MatMulLayout::KN;
  const std::int64_t bk = kn ? b.shape[r - 2] : b.shape[r - 1];
  const std::int64_t n = kn ? b.shape[r - 1] : b.shape[r - 2];
  if (bk != k) {
    fail("{}: a has {} columns but b has {} rows (layout {})", op, k, bk, kn ? "KN" : "NK");
  }
  std::vector<std::int64_t> shape(a.shape.begin(), a.shape.end() - 1);
  shape.push_back(n);
  Int8Tensor y = makeInt8Tensor(shape);
  for (std::int64_t batch = 0; batch < batches; ++batch) {
    const std::int8_t* pa = a.data.data() + batch * m * k;
    const std::int8_t* pb = b.data.data() + batch * k * n;
    std::int8_t* py = y.data.data() + batch * m * n;
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        std::int64_t sum = 0;
        for (std::int64_t t = 0; t < k; ++t) {
          const std::int64_t bv = kn ? pb[t * n + j] : pb[j * k + t];
          sum += (std::int64_t{pa[i * k + t]} - p.zeroPointA) * (bv - p.zeroPointB);
        }
        // Two's-complement wrap to int32, as the accumulator does.
        const auto acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(sum));
        py[i * n + j] = finishOutput(requantize(acc, p.multiplier, p.output.rounding), p.output);
      }
    }
  }
  return y;
}

}  // namespace npu::golden
