// int8 convolution and fully connected layers on NHWC tensors (docs/numerics.md, "Conv / FC").
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
/// input channels [g * Cin/groups, (g+1) * Cin/groups). Computed by a one-shot Conv2dInt8Layer
/// (oneDNN's sums; bit-exact with plain::conv2dInt8).
Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& params);

/// The int32 accumulators of conv2dInt8 (bias included, wrapping), NHWC [N, oH, oW, Cout]: the
/// op without its output stage.
std::vector<std::int32_t> conv2dInt8Accumulators(const Int8Tensor& x, const Int8Tensor& w,
                                                 const Conv2dInt8Params& params);

/// conv2dInt8 prepared once for one input shape and run on many inputs: the checks, the oneDNN
/// primitive and the weights in its layout are made at construction. The sums of products come
/// from oneDNN's int8 kernels (u8 activations x s8 weights -> s32, zero-point compensation and
/// every other stage computed here, so the result is bit-exact with the formula; docs/numerics.md
/// "How the golden computes"). Copies share the prepared state; run() may be called from several
/// threads at once.
class Conv2dInt8Layer {
 public:
  /// `inputShape` is NHWC; throws Error as conv2dInt8 does.
  Conv2dInt8Layer(std::vector<std::int64_t> inputShape, const Int8Tensor& w,
                  const Conv2dInt8Params& params);

  /// conv2dInt8(x, w, params) for an x of the prepared shape (throws Error otherwise).
  Int8Tensor run(const Int8Tensor& x) const;
  /// conv2dInt8Accumulators(x, w, params).
  std::vector<std::int32_t> accumulators(const Int8Tensor& x) const;

  const std::vector<std::int64_t>& inputShape() const;
  std::vector<std::int64_t> outputShape() const;

  /// The prepared state (oneDNN primitive, weights in its layout, compensations).
  struct Prepared;

 private:
  /// Throws Error unless x is consistent and of the prepared shape.
  void checkInput(const Int8Tensor& x) const;

  std::shared_ptr<const Prepared> m_prepared;
};

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
