// The int8 output stage shared by conv, FC, add and mul: zero point, clip, optional LUT.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "npu/golden/lut.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// What follows the last requant of an op: y = clamp(r + zeroPoint, clipLo, clipHi), then
/// y = LUT[y + 128] when a LUT is present. `rounding` is the mode of every requant of the op.
struct OutputStage {
  std::int32_t zeroPoint = 0;
  std::int32_t clipLo = -128;
  std::int32_t clipHi = 127;
  std::optional<Lut> lut;
  Rounding rounding = Rounding::Single;
};

/// Throws Error naming `op` unless the zero point and the clip bounds are int8 with lo <= hi.
void checkOutputStage(const OutputStage& stage, const char* op);

/// Applies zero point, clip and LUT to a requantized value (the sum is taken in int64).
inline std::int8_t finishOutput(std::int32_t requantized, const OutputStage& stage) {
  const std::int64_t y = std::clamp<std::int64_t>(std::int64_t{requantized} + stage.zeroPoint,
                                                  stage.clipLo, stage.clipHi);
  const auto v = static_cast<std::int32_t>(y);
  return stage.lut ? lookUp(*stage.lut, v) : static_cast<std::int8_t>(v);
}

}  // namespace npu::golden
