// fp32 activations, BatchNormalization and Softmax against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fp32_test_util.h"
#include "npu/golden/fp32_activation.h"
#include "npu/golden/fp32_normalization.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;

const FloatTensor kInput{{5}, {-4, -1, 0, 1, 4}};

TEST(Fp32Activation, PiecewiseLinear) {
  expectTensor(relu(kInput), {5}, {0, 0, 0, 1, 4});
  expectTensor(clip(kInput, -1.5F, 2.0F), {5}, {-1.5, -1, 0, 1, 2});
  expectTensor(clip(kInput), {5}, {-4, -1, 0, 1, 4});
  expectTensor(leakyRelu(kInput), {5}, {-0.04F, -0.01F, 0, 1, 4});
  expectTensor(leakyRelu(kInput, 0.5F), {5}, {-2, -0.5, 0, 1, 4});
  expectTensor(hardSigmoid(kInput), {5}, {0, 0.3F, 0.5, 0.7F, 1});
  expectTensor(hardSwish(kInput), {5}, {0, -1.0F / 3.0F, 0, 2.0F / 3.0F, 4});
  EXPECT_EQ(errorOf([] { clip(kInput, 1.0F, 0.0F); }), "clip: min 1 is above max 0");
}

TEST(Fp32Activation, Smooth) {
  expectTensor(sigmoid(kInput), {5}, {0.0179862F, 0.2689414F, 0.5F, 0.7310586F, 0.9820138F});
  expectTensor(tanh(kInput), {5}, {-0.9993293F, -0.7615942F, 0, 0.7615942F, 0.9993293F});
  expectTensor(silu(kInput), {5}, {-0.0719448F, -0.2689414F, 0, 0.7310586F, 3.9280552F});
  expectTensor(gelu(kInput), {5}, {-0.0001267F, -0.1586553F, 0, 0.8413447F, 3.9998733F});
  expectTensor(gelu(kInput, true), {5}, {-0.0000706F, -0.1588080F, 0, 0.8411920F, 3.9999294F});
}

TEST(Fp32Activation, SoftplusAndMish) {
  expectTensor(softplus(kInput), {5}, {0.0181499F, 0.3132617F, 0.6931472F, 1.3132617F, 4.0181499F});
  expectTensor(mish(kInput), {5}, {-0.0725917F, -0.3034015F, 0, 0.8650984F, 3.9974128F});
  // No overflow where exp(x) is beyond float (and double) range, and no loss of the tiny tail.
  EXPECT_EQ(scalar::softplus(100.0F), 100.0F);
  EXPECT_EQ(scalar::softplus(1e30F), 1e30F);
  EXPECT_EQ(scalar::softplus(std::numeric_limits<float>::infinity()),
            std::numeric_limits<float>::infinity());
  EXPECT_NEAR(scalar::softplus(-20.0F), 2.0611537e-9F, 1e-15F);
  EXPECT_EQ(scalar::softplus(-std::numeric_limits<float>::infinity()), 0.0F);
  EXPECT_EQ(scalar::mish(100.0F), 100.0F);
  EXPECT_EQ(scalar::mish(1e30F), 1e30F);
  EXPECT_NEAR(scalar::mish(-100.0F), 0.0F, 1e-30F);
}

TEST(Fp32BatchNorm, NormalisesPerChannel) {
  const FloatTensor x{{1, 2, 1, 2}, {1, 2, 3, 4}};
  const std::vector<float> scale{1, 2}, bias{0, 1}, mean{1, 2}, var{4, 1};
  expectTensor(batchNormalization(x, scale, bias, mean, var, 0.0F), {1, 2, 1, 2}, {0, 0.5, 3, 5});
  const std::vector<float> one{1};
  EXPECT_EQ(errorOf([&] { batchNormalization(x, one, bias, mean, var); }),
            "batchNormalization: input [1, 2, 1, 2] has 2 channels but scale/bias/mean/var have "
            "1/2/2/2");
}

TEST(Fp32Softmax, AlongEitherAxis) {
  const FloatTensor x{{2, 2}, {0, std::log(3.0F), 1, 1}};
  expectTensor(softmax(x), {2, 2}, {0.25, 0.75, 0.5, 0.5});
  expectTensor(softmax(x, 0), {2, 2}, {0.2689414F, 0.5246331F, 0.7310586F, 0.4753669F});
  EXPECT_EQ(errorOf([&] { softmax(x, 2); }), "softmax: axis 2 is out of range for rank 2");
}

}  // namespace
}  // namespace npu::golden
