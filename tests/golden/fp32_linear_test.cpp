// fp32 Gemm (transposes, alpha, beta, broadcast C) and MatMul (1-D promotion, batch broadcast).
#include "npu/golden/fp32_linear.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

TEST(Fp32Gemm, PlainProduct) {
  expectTensor(gemm(iota({2, 3}), iota({3, 2}), nullptr, {}), {2, 2}, {10, 13, 28, 40});
}

TEST(Fp32Gemm, TransposesAlphaBetaAndBroadcastC) {
  // A^T given as [3, 2], B^T as [2, 3]: the same product as above.
  const FloatTensor at{{3, 2}, {0, 3, 1, 4, 2, 5}};
  const FloatTensor bt{{2, 3}, {0, 2, 4, 1, 3, 5}};
  const FloatTensor c{{2}, {1, 2}};
  GemmParams p;
  p.transA = true;
  p.transB = true;
  p.alpha = 2.0F;
  p.beta = 0.5F;
  expectTensor(gemm(at, bt, &c, p), {2, 2}, {20.5, 27, 56.5, 81});
  const FloatTensor column{{2, 1}, {10, 20}};
  expectTensor(gemm(iota({2, 3}), iota({3, 2}), &column, {}), {2, 2}, {20, 23, 48, 60});
}

TEST(Fp32Gemm, RejectsBadShapes) {
  EXPECT_EQ(errorOf([] {
              gemm(iota({2, 3}), iota({2, 2}), nullptr, {});
            }),
            "gemm: inner dimensions differ: A' [2, 3] and B' [2, 2]");
  const FloatTensor c = iota({3});
  EXPECT_EQ(errorOf([&] {
              gemm(iota({2, 3}), iota({3, 2}), &c, {});
            }),
            "gemm: shapes [3] and [2, 2] do not broadcast");
}

TEST(Fp32MatMul, BatchedAndOneDimensional) {
  expectTensor(matmul(iota({2, 2, 3}), iota({3, 2})), {2, 2, 2}, {10, 13, 28, 40, 46, 67, 64, 94});
  expectTensor(matmul(makeFloatTensor({3}, 1.0F), iota({3, 2})), {2}, {6, 9});
  expectTensor(matmul(iota({2, 3}), makeFloatTensor({3}, 1.0F)), {2}, {3, 12});
}

TEST(Fp32MatMul, BroadcastsBatchDimensions) {
  const FloatTensor a{{2, 1, 1, 2}, {1, 2, 3, 4}};
  const FloatTensor b{{3, 2, 1}, {5, 6, 7, 8, 9, 10}};
  expectTensor(matmul(a, b), {2, 3, 1, 1}, {17, 23, 29, 39, 53, 67});
  EXPECT_EQ(errorOf([] {
              matmul(iota({2, 3}), iota({2, 3}));
            }),
            "matmul: inner dimensions differ: [2, 3] and [2, 3]");
}

TEST(Fp32Linear, RandomMatMulsWithinTheRoundingBound) {
  // oneDNN sums in its own order: within 2 K 2^-24 sum |a b| of a double-precision reference.
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  for (const auto& [m, k, n] : std::vector<std::array<std::int64_t, 3>>{
           {1, 1, 1}, {3, 17, 5}, {1, 512, 1000}, {64, 96, 33}, {7, 1, 9}}) {
    FloatTensor a = makeFloatTensor({m, k}), b = makeFloatTensor({k, n});
    for (float& v : a.data) {
      v = normal(rng);
    }
    for (float& v : b.data) {
      v = normal(rng);
    }
    const FloatTensor y = matmul(a, b);
    ASSERT_EQ(y.shape, (std::vector<std::int64_t>{m, n}));
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double exact = 0.0, magnitude = 0.0;
        for (std::int64_t p = 0; p < k; ++p) {
          const double term = static_cast<double>(a.data[static_cast<std::size_t>(i * k + p)]) *
                              b.data[static_cast<std::size_t>(p * n + j)];
          exact += term;
          magnitude += std::fabs(term);
        }
        ASSERT_LE(std::fabs(y.data[static_cast<std::size_t>(i * n + j)] - exact),
                  2.0 * static_cast<double>(k) * std::ldexp(1.0, -24) * magnitude)
            << m << "x" << k << "x" << n << " at " << i << ", " << j;
      }
    }
  }
}

}  // namespace
}  // namespace npu::golden
