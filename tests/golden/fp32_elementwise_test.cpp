// fp32 Add/Sub/Mul/Div with numpy broadcasting.
#include "npu/golden/fp32_elementwise.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

TEST(Fp32Elementwise, SameShape) {
  expectTensor(add(iota({2, 2}), iota({2, 2}, 1)), {2, 2}, {1, 3, 5, 7});
  expectTensor(div(iota({2}, 1), FloatTensor{{2}, {2, 4}}), {2}, {0.5, 0.5});
}

TEST(Fp32Elementwise, Broadcasts) {
  expectTensor(add(iota({2, 3}), FloatTensor{{3}, {10, 20, 30}}), {2, 3}, {10, 21, 32, 13, 24, 35});
  expectTensor(sub(FloatTensor{{2, 1}, {10, 20}}, FloatTensor{{1, 3}, {1, 2, 3}}), {2, 3},
               {9, 8, 7, 19, 18, 17});
  expectTensor(mul(iota({2, 2}), FloatTensor{{}, {3}}), {2, 2}, {0, 3, 6, 9});
  // Per-channel NCHW broadcast as a bias add exports it: [1, C, 1, 1].
  expectTensor(add(iota({1, 2, 1, 2}), FloatTensor{{1, 2, 1, 1}, {100, 200}}), {1, 2, 1, 2},
               {100, 101, 202, 203});
}

TEST(Fp32Elementwise, RejectsIncompatibleShapes) {
  EXPECT_EQ(errorOf([] {
              add(iota({2, 3}), iota({2}));
            }),
            "add: shapes [2, 3] and [2] do not broadcast");
  EXPECT_EQ(errorOf([] {
              mul(FloatTensor{{2}, {1}}, iota({2}));
            }),
            "mul: tensor of shape [2] holds 1 values, expected 2");
}

}  // namespace
}  // namespace npu::golden
