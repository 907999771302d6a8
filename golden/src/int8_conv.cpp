// int8 conv and FC: the checks and the output stage of docs/numerics.md; the sums of products come
// from Conv2dInt8Layer (oneDNN, int8_conv_layer.cpp).
#include "npu/golden/int8_conv.h"

#include "int8_conv_shape.h"
#include "npu/golden/float_tensor.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace detail {
namespace {

void checkInt8(std::int32_t value, const char* op, const char* what) {
  if (value < -128 || value > 127) {
    fail("{}: {} {} is outside [-128, 127]", op, what, value);
  }
}

}  // namespace

Int8ConvShape checkConv2dInt8(std::span<const std::int64_t> xShape, const Int8Tensor& w,
                              const Conv2dInt8Params& p, const char* op) {
  checkConsistent(w, op);
  if (xShape.size() != 4) {
    fail("{}: input must be 4-D NHWC, got {}", op, shapeString(xShape));
  }
  if (w.rank() != 4) {
    fail("{}: weight must be 4-D OHWI, got {}", op, shapeString(w.shape));
  }
  Int8ConvShape s;
  s.n = xShape[0];
  s.inH = xShape[1];
  s.inW = xShape[2];
  s.inC = xShape[3];
  s.outC = w.shape[0];
  s.kH = w.shape[1];
  s.kW = w.shape[2];
  s.groupC = w.shape[3];
  s.groups = p.groups;
  if (s.n < 0 || s.inH < 0 || s.inW < 0 || s.inC < 0) {
    fail("{}: input shape {} has a negative dimension", op, shapeString(xShape));
  }
  if (s.groups < 1 || s.inC % s.groups != 0 || s.outC % s.groups != 0) {
    fail("{}: channels in {} and out {} must both be divisible by groups {}", op, s.inC, s.outC,
         s.groups);
  }
  if (s.inC / s.groups != s.groupC) {
    fail("{}: input {} has {} channels, but weight {} with {} groups expects {}", op,
         shapeString(xShape), s.inC, shapeString(w.shape), s.groups, s.groupC * s.groups);
  }
  s.sH = p.strides[0];
  s.sW = p.strides[1];
  s.dH = p.dilations[0];
  s.dW = p.dilations[1];
  s.padT = p.pads[0];
  s.padL = p.pads[1];
  s.padB = p.pads[2];
  s.padR = p.pads[3];
  if (s.sH < 1 || s.sW < 1 || s.dH < 1 || s.dW < 1) {
    fail("{}: strides and dilations must be >= 1", op);
  }
  if (s.padT < 0 || s.padL < 0 || s.padB < 0 || s.padR < 0) {
    fail("{}: pads must be >= 0", op);
  }
  const std::int64_t padH = s.inH + s.padT + s.padB, padW = s.inW + s.padL + s.padR;
  const std::int64_t spanH = s.dH * (s.kH - 1) + 1, spanW = s.dW * (s.kW - 1) + 1;
  if (s.kH < 1 || s.kW < 1 || padH < spanH || padW < spanW) {
    fail("{}: kernel {}x{} (dilated {}x{}) does not fit the padded input {}", op, s.kH, s.kW, spanH,
         spanW, shapeString(xShape));
  }
  checkInt8(p.inputZeroPoint, op, "input zero point");
  checkOutputStage(p.output, op);
  if (!p.bias.empty() && static_cast<std::int64_t>(p.bias.size()) != s.outC) {
    fail("{}: {} bias values for {} output channels", op, p.bias.size(), s.outC);
  }
  if (p.multipliers.size() != 1 && static_cast<std::int64_t>(p.multipliers.size()) != s.outC) {
    fail("{}: {} multipliers for {} output channels (give one or one per channel)", op,
         p.multipliers.size(), s.outC);
  }
  for (const QuantizedMultiplier& m : p.multipliers) {
    checkQuantizedMultiplier(m, op);
  }
  s.outH = (padH - spanH) / s.sH + 1;
  s.outW = (padW - spanW) / s.sW + 1;
  return s;
}

Int8Tensor finishConv(std::span<const std::int32_t> acc, std::vector<std::int64_t> outputShape,
                      const Conv2dInt8Params& p) {
  Int8Tensor y = makeInt8Tensor(std::move(outputShape));
  const auto outC = static_cast<std::size_t>(y.shape.back());
  const bool perChannel = p.multipliers.size() != 1;
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const QuantizedMultiplier& m = p.multipliers[perChannel ? i % outC : 0];
    y.data[i] = finishOutput(requantize(acc[i], m, p.output.rounding), p.output);
  }
  return y;
}

}  // namespace detail

Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& params) {
  checkConsistent(x, "conv2dInt8");
  return Conv2dInt8Layer(x.shape, w, params).run(x);
}

std::vector<std::int32_t> conv2dInt8Accumulators(const Int8Tensor& x, const Int8Tensor& w,
                                                 const Conv2dInt8Params& params) {
  checkConsistent(x, "conv2dInt8");
  return Conv2dInt8Layer(x.shape, w, params).accumulators(x);
}

Int8Tensor fullyConnectedInt8(const Int8Tensor& x, const Int8Tensor& w,
                              const FullyConnectedInt8Params& params) {
  checkConsistent(x, "fullyConnectedInt8");
  checkConsistent(w, "fullyConnectedInt8");
  if (x.rank() != 2 || w.rank() != 2) {
    fail("fullyConnectedInt8: input [N, K] and weight [Cout, K] must be 2-D, got {} and {}",
         shapeString(x.shape), shapeString(w.shape));
  }
  if (x.shape[1] != w.shape[1]) {
    fail("fullyConnectedInt8: input {} has K = {}, weight {} expects {}", shapeString(x.shape),
         x.shape[1], shapeString(w.shape), w.shape[1]);
  }
  Conv2dInt8Params conv;
  conv.inputZeroPoint = params.inputZeroPoint;
  conv.bias = params.bias;
  conv.multipliers = params.multipliers;
  conv.output = params.output;
  const Int8Tensor image{{x.shape[0], 1, 1, x.shape[1]}, x.data};
  const Int8Tensor kernel{{w.shape[0], 1, 1, w.shape[1]}, w.data};
  Int8Tensor y = conv2dInt8(image, kernel, conv);
  y.shape = {x.shape[0], w.shape[0]};
  return y;
}

std::vector<QuantizedMultiplier> convMultipliers(float inputScale,
                                                 std::span<const float> weightScales,
                                                 float outputScale) {
  std::vector<QuantizedMultiplier> result;
  result.reserve(weightScales.size());
  for (float ws : weightScales) {
    result.push_back(quantizeMultiplier(static_cast<double>(inputScale) * static_cast<double>(ws) /
                                        static_cast<double>(outputScale)));
  }
  return result;
}

}  // namespace npu::golden
