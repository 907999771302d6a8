// int8 row reductions along the last axis (softmax's row max, LayerNorm's row sums).
#pragma once

#include <cstdint>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// y[..., 0] = max over k of x[..., k]: the stored bytes, so input and output share scale and
/// zero point. The last axis becomes 1.
Int8Tensor reduceMaxLastAxisInt8(const Int8Tensor& x);

/// Parameters of an int8 row sum (docs/numerics.md, "Row reductions").
struct ReduceSumInt8Params {
  std::int32_t inputZeroPoint = 0;
  /// s_x / s_y (a ReduceSum) or s_x / (L * s_y) (a ReduceMean over L values).
  QuantizedMultiplier multiplier;
  OutputStage output;
};

/// y[..., 0] = finishOutput(requant(acc, multiplier)), acc = sum over k of (x[..., k] - zp_x)
/// summed in int64 and wrapped to int32. The last axis becomes 1.
Int8Tensor reduceSumLastAxisInt8(const Int8Tensor& x, const ReduceSumInt8Params& params);

}  // namespace npu::golden
