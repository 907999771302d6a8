// The output stage: the zero point is added to the requantized value in int64, before the clip.
#include "npu/golden/output_stage.h"

#include <gtest/gtest.h>

#include <limits>

namespace npu::golden {
namespace {

constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();

TEST(OutputStage, AddsTheZeroPointInInt64) {
  // A saturated requant plus the zero point leaves int32; a wrapping int32 sum would flip the
  // sign (INT32_MAX + 127 -> INT32_MIN + 126) and clip to the other end.
  OutputStage stage;
  stage.zeroPoint = 127;
  EXPECT_EQ(finishOutput(kMax, stage), 127);
  EXPECT_EQ(finishOutput(-255, stage), -128);
  stage.zeroPoint = -128;
  EXPECT_EQ(finishOutput(kMin, stage), -128);
  EXPECT_EQ(finishOutput(255, stage), 127);
  stage.clipLo = -3;
  stage.clipHi = 4;
  EXPECT_EQ(finishOutput(kMin, stage), -3);
  EXPECT_EQ(finishOutput(kMax, stage), 4);
}

}  // namespace
}  // namespace npu::golden
