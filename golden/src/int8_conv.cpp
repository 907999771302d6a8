// int8 conv and FC. The loops follow docs/numerics.md directly; for speed the input is first
// copied into a padded int16 buffer holding x - zp_x (padding becomes 0, which is what reading
// zp_x contributes) and the 32-bit sums are taken as unsigned so wrapping is well defined.
#include "npu/golden/int8_conv.h"

#include <algorithm>

#include "npu/golden/float_tensor.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace {

/// Largest dot-product length whose int32 sum cannot overflow: 65536 * 255 * 128 < 2^31.
constexpr std::int64_t kMaxDotLength = 65536;

/// sum a[i] * b[i] in int32; n <= kMaxDotLength. A contiguous reduction the compiler vectorises.
std::int32_t dot(const std::int16_t* a, const std::int16_t* b, std::int64_t n) {
  std::int32_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
  }
  return sum;
}

/// The wrapping 32-bit sum of a[i] * b[i] for any n.
std::uint32_t wrappingDot(const std::int16_t* a, const std::int16_t* b, std::int64_t n) {
  std::uint32_t sum = 0;
  for (std::int64_t start = 0; start < n; start += kMaxDotLength) {
    sum +=
        static_cast<std::uint32_t>(dot(a + start, b + start, std::min(kMaxDotLength, n - start)));
  }
  return sum;
}

void checkInt8(std::int32_t value, const char* op, const char* what) {
  if (value < -128 || value > 127) {
    fail("{}: {} {} is outside [-128, 127]", op, what, value);
  }
}

}  // namespace

Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& p) {
  const char* op = "conv2dInt8";
  checkConsistent(x, op);
  checkConsistent(w, op);
  if (x.rank() != 4) {
    fail("{}: input must be 4-D NHWC, got {}", op, shapeString(x.shape));
  }
  if (w.rank() != 4) {
    fail("{}: weight must be 4-D OHWI, got {}", op, shapeString(w.shape));
  }
  const std::int64_t n = x.shape[0], inH = x.shape[1], inW = x.shape[2], inC = x.shape[3];
  const std::int64_t outC = w.shape[0], kH = w.shape[1], kW = w.shape[2], groupC = w.shape[3];
  const std::int64_t groups = p.groups;
  if (groups < 1 || inC % groups != 0 || outC % groups != 0) {
    fail("{}: channels in {} and out {} must both be divisible by groups {}", op, inC, outC,
         groups);
  }
  if (inC / groups != groupC) {
    fail("{}: input {} has {} channels, but weight {} with {} groups expects {}", op,
         shapeString(x.shape), inC, shapeString(w.shape), groups, groupC * groups);
  }
  const auto [sH, sW] = p.strides;
  const auto [dH, dW] = p.dilations;
  const auto [padT, padL, padB, padR] = p.pads;
  if (sH < 1 || sW < 1 || dH < 1 || dW < 1) {
    fail("{}: strides and dilations must be >= 1", op);
  }
  if (padT < 0 || padL < 0 || padB < 0 || padR < 0) {
    fail("{}: pads must be >= 0", op);
  }
  const std::int64_t padH = inH + padT + padB, padW = inW + padL + padR;
  const std::int64_t spanH = dH * (kH - 1) + 1, spanW = dW * (kW - 1) + 1;
  if (kH < 1 || kW < 1 || padH < spanH || padW < spanW) {
    fail("{}: kernel {}x{} (dilated {}x{}) does not fit the padded input {}", op, kH, kW, spanH,
         spanW, shapeString(x.shape));
  }
  checkInt8(p.inputZeroPoint, op, "input zero point");
  checkOutputStage(p.output, op);
  if (!p.bias.empty() && static_cast<std::int64_t>(p.bias.size()) != outC) {
    fail("{}: {} bias values for {} output channels", op, p.bias.size(), outC);
  }
  if (p.multipliers.size() != 1 && static_cast<std::int64_t>(p.multipliers.size()) != outC) {
    fail("{}: {} multipliers for {} output channels (give one or one per channel)", op,
         p.multipliers.size(), outC);
  }
  for (const QuantizedMultiplier& m : p.multipliers) {
    checkQuantizedMultiplier(m, op);
  }
  const std::int64_t outH = (padH - spanH) / sH + 1, outW = (padW - spanW) / sW + 1;

  // Per-channel parameters, expanded once.
  std::vector<std::uint32_t> bias(static_cast<std::size_t>(outC), 0);
  std::vector<QuantizedMultiplier> mult(static_cast<std::size_t>(outC), p.multipliers.front());
  for (std::size_t c = 0; c < bias.size(); ++c) {
    bias[c] = p.bias.empty() ? 0U : static_cast<std::uint32_t>(p.bias[c]);
    mult[c] = p.multipliers.size() == 1 ? p.multipliers.front() : p.multipliers[c];
  }
  const bool depthwise = groups == inC && outC == inC;
  // Weights as int16: OHWI for the general path, [kH][kW][C] for depthwise (channel innermost).
  std::vector<std::int16_t> wgt(w.data.size());
  if (depthwise) {
    for (std::int64_t c = 0; c < outC; ++c) {
      for (std::int64_t t = 0; t < kH * kW; ++t) {
        wgt[static_cast<std::size_t>(t * outC + c)] =
            w.data[static_cast<std::size_t>(c * kH * kW + t)];
      }
    }
  } else {
    std::copy(w.data.begin(), w.data.end(), wgt.begin());
  }

  Int8Tensor y = makeInt8Tensor({n, outH, outW, outC});
  std::vector<std::int16_t> in(static_cast<std::size_t>(padH * padW * inC));
  std::vector<std::uint32_t> acc(static_cast<std::size_t>(outC));
  const std::int64_t outPerGroup = outC / groups;
  for (std::int64_t b = 0; b < n; ++b) {
    // Padded input minus the zero point: padding holds 0.
    std::fill(in.begin(), in.end(), std::int16_t{0});
    for (std::int64_t iy = 0; iy < inH; ++iy) {
      for (std::int64_t ix = 0; ix < inW; ++ix) {
        const std::int8_t* src =
            &x.data[static_cast<std::size_t>(((b * inH + iy) * inW + ix) * inC)];
        std::int16_t* dst = &in[static_cast<std::size_t>(((iy + padT) * padW + ix + padL) * inC)];
        for (std::int64_t c = 0; c < inC; ++c) {
          dst[c] = static_cast<std::int16_t>(src[c] - p.inputZeroPoint);
        }
      }
    }
    std::int8_t* out = &y.data[static_cast<std::size_t>(b * outH * outW * outC)];
    for (std::int64_t oy = 0; oy < outH; ++oy) {
      for (std::int64_t ox = 0; ox < outW; ++ox) {
        std::copy(bias.begin(), bias.end(), acc.begin());
        for (std::int64_t ky = 0; ky < kH; ++ky) {
          for (std::int64_t kx = 0; kx < kW; ++kx) {
            const std::int16_t* pixel = &in[static_cast<std::size_t>(
                ((oy * sH + ky * dH) * padW + ox * sW + kx * dW) * inC)];
            if (depthwise) {
              const std::int16_t* tap = &wgt[static_cast<std::size_t>((ky * kW + kx) * outC)];
              for (std::int64_t c = 0; c < outC; ++c) {
                acc[static_cast<std::size_t>(c)] += static_cast<std::uint32_t>(
                    static_cast<std::int32_t>(pixel[c]) * static_cast<std::int32_t>(tap[c]));
              }
              continue;
            }
            for (std::int64_t oc = 0; oc < outC; ++oc) {
              const std::int64_t g = oc / outPerGroup;
              const std::int16_t* tap =
                  &wgt[static_cast<std::size_t>(((oc * kH + ky) * kW + kx) * groupC)];
              acc[static_cast<std::size_t>(oc)] += wrappingDot(pixel + g * groupC, tap, groupC);
            }
          }
        }
        for (std::int64_t oc = 0; oc < outC; ++oc) {
          const auto c = static_cast<std::size_t>(oc);
          // C++20 defines the unsigned -> signed conversion as two's complement.
          const auto sum = static_cast<std::int32_t>(acc[c]);
          *out++ = finishOutput(requantize(sum, mult[c], p.output.rounding), p.output);
        }
      }
    }
  }
  return y;
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
