// fp32 Resize: nearest (integer and non-integer scales, coordinate transforms, rounding modes)
// and linear.
#include "npu/golden/fp32_resize.h"

#include <gtest/gtest.h>

#include "fp32_test_util.h"

namespace npu::golden {
namespace {

using testing::errorOf;
using testing::expectTensor;
using testing::iota;

std::vector<std::int64_t> sources(std::int64_t in, std::int64_t out, CoordinateTransform t,
                                  NearestMode m) {
  std::vector<std::int64_t> result;
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  for (std::int64_t o = 0; o < out; ++o) {
    result.push_back(nearestSourceIndex(o, in, out, scale, t, m));
  }
  return result;
}

using V = std::vector<std::int64_t>;

TEST(Fp32Resize, LinearMatchesPyTorchBilinear) {
  // The values PyTorch's F.interpolate(mode="bilinear") gives for [[0, 1], [2, 5]].
  const FloatTensor x{{1, 1, 2, 2}, {0, 1, 2, 5}};
  ResizeParams p;
  p.mode = ResizeMode::Linear;
  p.scales = {1, 1, 2, 2};  // half_pixel: align_corners=False
  expectTensor(resizeLinear(x, p), {1, 1, 4, 4},
               {0.0F, 0.25F, 0.75F, 1.0F, 0.5F, 0.875F, 1.625F, 2.0F, 1.5F, 2.125F, 3.375F, 4.0F,
                2.0F, 2.75F, 4.25F, 5.0F});
  p.scales.clear();
  p.sizes = {1, 1, 2, 4};
  p.coordinateTransform = CoordinateTransform::AlignCorners;
  expectTensor(resizeLinear(x, p), {1, 1, 2, 4},
               {0.0F, 1.0F / 3, 2.0F / 3, 1.0F, 2.0F, 3.0F, 4.0F, 5.0F});
}

TEST(Fp32Resize, IntegerUpsampleAsymmetricFloor) {
  ResizeParams p;
  p.scales = {1, 1, 2, 2};
  p.coordinateTransform = CoordinateTransform::Asymmetric;
  p.nearestMode = NearestMode::Floor;
  expectTensor(resizeNearest(iota({1, 1, 2, 2}, 1), p), {1, 1, 4, 4},
               {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
  // The ONNX defaults (half_pixel, round_prefer_floor) give the same picture at scale 2.
  p.coordinateTransform = CoordinateTransform::HalfPixel;
  p.nearestMode = NearestMode::RoundPreferFloor;
  expectTensor(resizeNearest(iota({1, 1, 2, 2}, 1), p), {1, 1, 4, 4},
               {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(Fp32Resize, NonIntegerScalesAndSizes) {
  ResizeParams p;
  p.scales = {1.5F};
  p.coordinateTransform = CoordinateTransform::Asymmetric;
  p.nearestMode = NearestMode::Floor;
  expectTensor(resizeNearest(FloatTensor{{2}, {7, 8}}, p), {3}, {7, 7, 8});
  ResizeParams down;
  down.sizes = {2};
  down.coordinateTransform = CoordinateTransform::Asymmetric;
  down.nearestMode = NearestMode::Floor;
  expectTensor(resizeNearest(iota({4}), down), {2}, {0, 2});
  EXPECT_EQ(sources(2, 6, CoordinateTransform::HalfPixel, NearestMode::RoundPreferFloor),
            (V{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(sources(2, 3, CoordinateTransform::Asymmetric, NearestMode::Ceil), (V{0, 1, 1}));
  EXPECT_EQ(sources(2, 3, CoordinateTransform::TfHalfPixelForNn, NearestMode::Floor), (V{0, 1, 1}));
  EXPECT_EQ(sources(3, 1, CoordinateTransform::PytorchHalfPixel, NearestMode::Floor), (V{0}));
}

TEST(Fp32Resize, TiesFollowTheNearestMode) {
  // align_corners, 3 -> 5: source coordinates 0, 0.5, 1, 1.5, 2.
  EXPECT_EQ(sources(3, 5, CoordinateTransform::AlignCorners, NearestMode::RoundPreferFloor),
            (V{0, 0, 1, 1, 2}));
  EXPECT_EQ(sources(3, 5, CoordinateTransform::AlignCorners, NearestMode::RoundPreferCeil),
            (V{0, 1, 1, 2, 2}));
}

TEST(Fp32Resize, RejectsBadParameters) {
  ResizeParams p;
  EXPECT_EQ(errorOf([&] { resizeNearest(iota({2}), p); }),
            "resizeNearest: exactly one of scales and sizes must be given");
  p.scales = {1, 2};
  EXPECT_EQ(errorOf([&] { resizeNearest(iota({2}), p); }),
            "resizeNearest: scales needs 1 entries for input [2]");
}

}  // namespace
}  // namespace npu::golden
