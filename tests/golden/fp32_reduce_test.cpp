// fp32 reductions and ArgMax/ArgMin against hand-computed values.
#include "npu/golden/fp32_reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

using V = std::vector<std::int64_t>;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Rows [1, -2, 3] and [-4, 5, -6].
const FloatTensor kX{{2, 3}, {1, -2, 3, -4, 5, -6}};

struct ReduceCase {
  ReduceKind kind;
  std::vector<float> rows;     // over axis -1
  std::vector<float> columns;  // over axis 0
  float all;                   // over every axis
};

const std::vector<ReduceCase> kCases{
    {ReduceKind::Sum, {2, -5}, {-3, 3, -3}, -3},
    {ReduceKind::Mean, {2.0F / 3, -5.0F / 3}, {-1.5, 1.5, -1.5}, -0.5},
    {ReduceKind::Max, {3, 5}, {1, 5, 3}, 5},
    {ReduceKind::Min, {-2, -6}, {-4, -2, -6}, -6},
    {ReduceKind::L1, {6, 15}, {5, 7, 9}, 21},
    {ReduceKind::L2, {3.7416574F, 8.7749644F}, {4.1231056F, 5.3851648F, 6.7082039F}, 9.5393920F},
    {ReduceKind::SumSquare, {14, 77}, {17, 29, 45}, 91},
    {ReduceKind::LogSumExp,
     {3.1328452F, 5.0001401F},
     {1.0067153F, 5.0009115F, 3.0001234F},
     5.1438431F},
    {ReduceKind::Prod, {-6, 120}, {-4, -10, -18}, -720},
};

TEST(Fp32Reduce, EveryKindKeepingAndDroppingAxes) {
  for (const ReduceCase& c : kCases) {
    SCOPED_TRACE(static_cast<int>(c.kind));
    expectTensor(reduce(kX, c.kind, V{-1}, true), {2, 1}, c.rows);
    expectTensor(reduce(kX, c.kind, V{1}, false), {2}, c.rows);
    expectTensor(reduce(kX, c.kind, V{0}, true), {1, 3}, c.columns);
    expectTensor(reduce(kX, c.kind, V{-2}, false), {3}, c.columns);
    expectTensor(reduce(kX, c.kind, V{}, true), {1, 1}, {c.all});
    expectTensor(reduce(kX, c.kind, V{}, false), {}, {c.all});
    expectTensor(reduce(kX, c.kind, V{1, 0}, false), {}, {c.all});
  }
}

TEST(Fp32Reduce, NonAdjacentNegativeAxes) {
  // Sum over i and k of 12i + 4j + k is 32j + 60.
  expectTensor(reduce(iota({2, 3, 4}), ReduceKind::Sum, V{-1, 0}, false), {3}, {60, 92, 124});
  expectTensor(reduce(iota({2, 3, 4}), ReduceKind::Max, V{-1, 0}, true), {1, 3, 1}, {15, 19, 23});
  expectTensor(reduce(iota({2, 3, 4}), ReduceKind::Min, V{1}, false), {2, 4},
               {0, 1, 2, 3, 12, 13, 14, 15});
}

TEST(Fp32Reduce, ScalarAndEmptyInputs) {
  const FloatTensor scalar{{}, {-3}};
  expectTensor(reduce(scalar, ReduceKind::L2, V{}, false), {}, {3});
  expectTensor(reduce(scalar, ReduceKind::SumSquare, V{}, true), {}, {9});
  // Reducing an empty axis gives ONNX's identities; Mean is undefined there and comes out NaN.
  const FloatTensor empty = makeFloatTensor({2, 0});
  expectTensor(reduce(empty, ReduceKind::Sum, V{1}, false), {2}, {0, 0});
  expectTensor(reduce(empty, ReduceKind::Prod, V{1}, false), {2}, {1, 1});
  EXPECT_EQ(reduce(empty, ReduceKind::Max, V{1}, false).data, (std::vector<float>{-kInf, -kInf}));
  EXPECT_EQ(reduce(empty, ReduceKind::Min, V{1}, false).data, (std::vector<float>{kInf, kInf}));
  EXPECT_EQ(reduce(empty, ReduceKind::LogSumExp, V{1}, false).data,
            (std::vector<float>{-kInf, -kInf}));
  EXPECT_TRUE(std::isnan(reduce(empty, ReduceKind::Mean, V{1}, false).data[0]));
  EXPECT_EQ(reduce(empty, ReduceKind::Sum, V{0}, true).shape, (V{1, 0}));
}

TEST(Fp32Reduce, NanAndInfinity) {
  const FloatTensor x{{3}, {1, std::nanf(""), 3}};
  EXPECT_TRUE(std::isnan(reduce(x, ReduceKind::Max, V{}, false).data[0]));
  EXPECT_TRUE(std::isnan(reduce(x, ReduceKind::Min, V{}, false).data[0]));
  // LogSumExp with an infinite peak is that infinity, not inf - inf.
  const FloatTensor big{{2}, {kInf, 1}};
  EXPECT_EQ(reduce(big, ReduceKind::LogSumExp, V{}, false).data[0], kInf);
  // Large values that would overflow exp in float.
  expectTensor(reduce(FloatTensor{{2}, {1000, 1000}}, ReduceKind::LogSumExp, V{}, false), {},
               {1000.6931472F}, 1e-3F);
}

TEST(Fp32Reduce, ReducedShape) {
  EXPECT_EQ(reducedShape(V{2, 3, 4}, V{1}, false, "reduceMean"), (V{2, 4}));
  EXPECT_EQ(reducedShape(V{2, 3, 4}, V{-1, 0}, true, "reduceMean"), (V{1, 3, 1}));
  EXPECT_EQ(reducedShape(V{2, 3, 4}, V{}, false, "reduceMean"), (V{}));
  EXPECT_EQ(errorOf([] {
              reducedShape(V{2, 3}, V{-3}, true, "reduceMean");
            }),
            "reduceMean: axis -3 is out of range for rank 2");
}

TEST(Fp32Reduce, RejectsBadAxesAndData) {
  const FloatTensor x = iota({1, 2, 3, 4});
  EXPECT_EQ(errorOf([&] { reduce(x, ReduceKind::Sum, V{4}, true); }),
            "reduce: axis 4 is out of range for rank 4");
  EXPECT_EQ(errorOf([&] {
              reduce(x, ReduceKind::Sum, V{1, -3}, true);
            }),
            "reduce: axes [1, -3] repeat axis 1");
  EXPECT_EQ(errorOf([] {
              reduce(FloatTensor{{2, 2}, {1, 2, 3}}, ReduceKind::Sum, V{}, true);
            }),
            "reduce: tensor of shape [2, 2] holds 3 values, expected 4");
}

TEST(Fp32ArgExtreme, FirstOrLastIndexAlongAxis) {
  // Rows [1, 5, 5] and [7, 0, 7].
  const FloatTensor x{{2, 3}, {1, 5, 5, 7, 0, 7}};
  IndexResult r = argExtreme(x, 1, true, false, true);
  EXPECT_EQ(r.shape, (V{2, 1}));
  EXPECT_EQ(r.indices, (V{1, 0}));
  r = argExtreme(x, -1, false, true, true);
  EXPECT_EQ(r.shape, (V{2}));
  EXPECT_EQ(r.indices, (V{2, 2}));
  r = argExtreme(x, 1, false, false, false);
  EXPECT_EQ(r.indices, (V{0, 1}));
  r = argExtreme(x, 0, false, false, true);
  EXPECT_EQ(r.shape, (V{3}));
  EXPECT_EQ(r.indices, (V{1, 0, 1}));
  r = argExtreme(x, -2, true, false, false);
  EXPECT_EQ(r.shape, (V{1, 3}));
  EXPECT_EQ(r.indices, (V{0, 1, 0}));
  // The middle axis of a 3-D tensor: iota increases along it, so max is last and min first.
  r = argExtreme(iota({2, 3, 2}), 1, true, false, true);
  EXPECT_EQ(r.shape, (V{2, 1, 2}));
  EXPECT_EQ(r.indices, (V{2, 2, 2, 2}));
}

TEST(Fp32ArgExtreme, NanIsNeitherLargerNorSmaller) {
  const FloatTensor x{{3}, {1, std::nanf(""), 3}};
  EXPECT_EQ(argExtreme(x, 0, false, false, true).indices, (V{2}));
  EXPECT_EQ(argExtreme(x, 0, false, false, false).indices, (V{0}));
}

TEST(Fp32ArgExtreme, RejectsBadInput) {
  EXPECT_EQ(errorOf([] {
              argExtreme(iota({2, 3}), 2, true, false, false);
            }),
            "argMin: axis 2 is out of range for rank 2");
  EXPECT_EQ(errorOf([] {
              argExtreme(makeFloatTensor({2, 0}), 1, true, false, true);
            }),
            "argMax: axis 1 of [2, 0] is empty");
}

}  // namespace
}  // namespace npu::golden
