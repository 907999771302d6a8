// int8 linear resize along one axis: the 1/64 tap table and the two-tap output stage, checked
// against hand-worked values and against the fp32 resize on exact fractions.
#include "npu/golden/int8_resize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fp32_test_util.h"
#include "npu/golden/quantize.h"

namespace npu::golden {
namespace {

using Bytes = std::vector<std::int8_t>;

TEST(Int8Resize, TapsOfAnUpsampleByTwoUnderHalfPixel) {
  // Output o reads (o + 0.5) / 2 - 0.5: -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1).
  const std::vector<LinearTap> taps = linearResizeTaps(2, 4, 2.0F, CoordinateTransform::HalfPixel);
  const std::vector<LinearTap> expected{
      {0, 1, 64, 0}, {0, 1, 48, 16}, {0, 1, 16, 48}, {1, 1, 64, 0}};
  EXPECT_EQ(taps, expected);
}

TEST(Int8Resize, TapsUnderAlignCornersAndAsymmetric) {
  // align_corners, 3 -> 5: coordinates 0, 0.5, 1, 1.5, 2.
  const std::vector<LinearTap> corners =
      linearResizeTaps(3, 5, 5.0F / 3.0F, CoordinateTransform::AlignCorners);
  const std::vector<LinearTap> expectedCorners{
      {0, 1, 64, 0}, {0, 1, 32, 32}, {1, 2, 64, 0}, {1, 2, 32, 32}, {2, 2, 64, 0}};
  EXPECT_EQ(corners, expectedCorners);
  // asymmetric, 2 -> 6 (scale 3): coordinates 0, 1/3, 2/3, 1, 4/3, 5/3 (clamped to 1); 64/3
  // rounds to 21, 128/3 to 43.
  const std::vector<LinearTap> asym = linearResizeTaps(2, 6, 3.0F, CoordinateTransform::Asymmetric);
  const std::vector<LinearTap> expectedAsym{{0, 1, 64, 0}, {0, 1, 43, 21}, {0, 1, 21, 43},
                                            {1, 1, 64, 0}, {1, 1, 64, 0},  {1, 1, 64, 0}};
  EXPECT_EQ(asym, expectedAsym);
}

TEST(Int8Resize, TwoTapsRequantizedWithTheOutputStage) {
  // Rows of a 2x1x2 map, zero point 3, resized to 4 rows with the taps above and multiplier
  // 1/64: out = round((w0 * (a - 3) + w1 * (b - 3)) / 64) + zp_out.
  const Int8Tensor x{{1, 2, 1, 2}, {3, 67, 35, -61}};
  ResizeLinearInt8Params p;
  p.axis = 1;
  p.taps = linearResizeTaps(2, 4, 2.0F, CoordinateTransform::HalfPixel);
  p.inputZeroPoint = 3;
  p.multiplier = quantizeMultiplier(1.0 / 64.0);
  p.output.zeroPoint = -1;
  const Int8Tensor y = resizeLinearAxisInt8(x, p);
  ASSERT_EQ(y.shape, (std::vector<std::int64_t>{1, 4, 1, 2}));
  // Channel 0: 0 and 32 (minus the zero point): 0, 8, 24, 32. Channel 1: 64 and -64: 64, 32,
  // -32, -64; then + zp_out -1.
  EXPECT_EQ(y.data, (Bytes{-1, 63, 7, 31, 23, -33, 31, -65}));
  // Columns: the same along axis 2.
  const Int8Tensor xc{{1, 1, 2, 2}, {3, 67, 35, -61}};
  p.axis = 2;
  EXPECT_EQ(resizeLinearAxisInt8(xc, p).data, y.data);
}

TEST(Int8Resize, MatchesFloatResizeOnExactFractions) {
  // Upsampling by 2, 4 and 8 under half_pixel has fractions in 1/16: exact in 1/64, so with a
  // shared scale the int8 result is the fp32 resize of the dequantized input rounded once.
  std::mt19937 rng(5);
  for (const std::int64_t factor : {2, 4, 8}) {
    const std::int64_t h = 5;
    const std::int64_t c = 3;
    Int8Tensor x{{1, h, 1, c}, {}};
    FloatTensor xf = makeFloatTensor({1, c, h, 1});
    for (std::int64_t i = 0; i < h * c; ++i) {
      x.data.push_back(
          static_cast<std::int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng)));
    }
    const std::int32_t zp = 7;
    for (std::int64_t y = 0; y < h; ++y) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        xf.data[static_cast<std::size_t>(ch * h + y)] =
            static_cast<float>(x.data[static_cast<std::size_t>(y * c + ch)] - zp);
      }
    }
    ResizeParams fp;
    fp.mode = ResizeMode::Linear;
    fp.scales = {1.0F, 1.0F, static_cast<float>(factor), 1.0F};
    const FloatTensor ref = resizeLinear(xf, fp);
    ResizeLinearInt8Params p;
    p.axis = 1;
    p.taps =
        linearResizeTaps(h, h * factor, static_cast<float>(factor), CoordinateTransform::HalfPixel);
    p.inputZeroPoint = zp;
    p.multiplier = quantizeMultiplier(1.0 / 64.0);
    p.output.zeroPoint = zp;
    const Int8Tensor out = resizeLinearAxisInt8(x, p);
    for (std::int64_t y = 0; y < h * factor; ++y) {
      for (std::int64_t ch = 0; ch < c; ++ch) {
        const float r = ref.data[static_cast<std::size_t>(ch * h * factor + y)];
        const auto got = out.data[static_cast<std::size_t>(y * c + ch)];
        // Single rounding rounds halves up: floor(r + 0.5), clamped to int8.
        const auto want = static_cast<int>(std::clamp(std::floor(r + 0.5F) + zp, -128.0F, 127.0F));
        EXPECT_EQ(got, want) << "factor " << factor << " row " << y << " channel " << ch;
      }
    }
  }
}

TEST(Int8Resize, RejectsBadTapsAndAxes) {
  const Int8Tensor x{{1, 2, 1, 1}, {1, 2}};
  ResizeLinearInt8Params p;
  p.multiplier = quantizeMultiplier(1.0 / 64.0);
  p.taps = {{0, 2, 32, 32}};
  EXPECT_EQ(testing::errorOf([&] { resizeLinearAxisInt8(x, p); }),
            "resizeLinearAxisInt8: tap (0, 2) x (32, 32) is outside 2 positions or does not sum "
            "to 64");
  p.taps = {{0, 1, 32, 31}};
  EXPECT_NE(testing::errorOf([&] { resizeLinearAxisInt8(x, p); }), "");
  p.axis = 3;
  p.taps = {{0, 1, 32, 32}};
  EXPECT_EQ(testing::errorOf([&] { resizeLinearAxisInt8(x, p); }),
            "resizeLinearAxisInt8: needs NHWC input and axis 1 or 2, got [1, 2, 1, 1] along 3");
  EXPECT_NE(testing::errorOf([] { linearResizeTaps(0, 4, 2.0F, CoordinateTransform::HalfPixel); }),
            "");
}

}  // namespace
}  // namespace npu::golden
