// int8 convolution and fully connected layers on NHWC tensors (docs/numerics.md, "Conv / FC").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "npu/golden/int8_tensor.h"
#include "npu/golden/output_stage.h"
#include "npu/golden/requant.h"

namespace npu::golden {

/// Parameters of an int8 convolution. Weights are symmetric (zero point 0); the compiler keeps
/// them in [-127, 127] (any int8 is computed correctly).
struct Conv2dInt8Params {
  /// Vertical, horizontal.
  std::array<std::int64_t, 2> strides{1, 1};
  /// Vertical, horizontal.
  std::array<std::int64_t, 2> dilations{1, 1};
  /// Top, left, bottom, right; padding positions read the input zero point.
  std::array<std::int64_t, 4> pads{0, 0, 0, 0};
  /// Input and output channels split into this many groups; groups == Cin == Cout is depthwise.
  std::int64_t groups = 1;
  std::int32_t inputZeroPoint = 0;
  /// int32 at scale s_in * s_w[c], one per output channel; empty means all zero.
  std::vector<std::int32_t> bias;
  /// One per output channel, or a single entry used for every channel.
  std::vector<QuantizedMultiplier> multipliers;
  OutputStage output;
};

/// int8 conv: x NHWC [N, H, W, Cin], w OHWI [Cout, kH, kW, Cin/groups] -> NHWC [N, oH, oW, Cout]
/// with oH = (H + top + bottom - dH*(kH-1) - 1) / sH + 1. Per output:
/// acc = bias[c] + sum (x - zp_x) * w (32-bit two's complement, wrapping);
/// y = finishOutput(requantize(acc, multipliers[c], rounding)). Output channel c of group g reads
/// input channels [g * Cin/groups, (g+1) * Cin/groups).
Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& params);

/// Parameters of an int8 fully connected layer (the fields of Conv2dInt8Params it uses).
struct FullyConnectedInt8Params {
  std::int32_t inputZeroPoint = 0;
  std::vector<std::int32_t> bias;
  std::vector<QuantizedMultiplier> multipliers;
  OutputStage output;
};

/// int8 FC: x [N, K], w [Cout, K] (PyTorch Linear / ONNX Gemm transB=1) -> [N, Cout]; exactly a
/// 1x1 conv over a 1x1 image.
Int8Tensor fullyConnectedInt8(const Int8Tensor& x, const Int8Tensor& w,
                              const FullyConnectedInt8Params& params);

/// Per-channel conv/FC multipliers: quantizeMultiplier(s_in * s_w[c] / s_out), in double.
std::vector<QuantizedMultiplier> convMultipliers(float inputScale,
                                                 std::span<const float> weightScales,
                                                 float outputScale);

}  // namespace npu::golden
