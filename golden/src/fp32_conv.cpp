// fp32 Conv and ConvTranspose: the checks, Conv through Conv2dLayer (oneDNN,
// fp32_conv_layer.cpp), ConvTranspose by direct loops.
#include "npu/golden/fp32_conv.h"

#include "fp32_conv_shape.h"
#include "npu/support/error.h"

namespace npu::golden {
namespace detail {

void checkConvCommon(std::span<const std::int64_t> xShape, const FloatTensor& w,
                     std::span<const float> bias, std::int64_t outChannels, std::int64_t group,
                     const std::array<std::int64_t, 2>& strides,
                     const std::array<std::int64_t, 2>& dilations,
                     const std::array<std::int64_t, 4>& pads, const char* op) {
  checkConsistent(w, op);
  if (xShape.size() != 4) {
    fail("{}: input must be 4-D NCHW, got {}", op, shapeString(xShape));
  }
  if (w.rank() != 4) {
    fail("{}: weight must be 4-D, got {}", op, shapeString(w.shape));
  }
  if (w.shape[2] < 1 || w.shape[3] < 1) {
    fail("{}: empty kernel in weight {}", op, shapeString(w.shape));
  }
  if (group < 1) {
    fail("{}: group must be >= 1, got {}", op, group);
  }
  for (int i = 0; i < 2; ++i) {
    if (strides[i] < 1 || dilations[i] < 1) {
      fail("{}: strides and dilations must be >= 1", op);
    }
  }
  for (std::int64_t p : pads) {
    if (p < 0) {
      fail("{}: pads must be >= 0", op);
    }
  }
  if (!bias.empty() && static_cast<std::int64_t>(bias.size()) != outChannels) {
    fail("{}: bias has {} values but there are {} output channels", op, bias.size(), outChannels);
  }
}

Fp32ConvShape checkConv2d(std::span<const std::int64_t> xShape, const FloatTensor& w,
                          std::span<const float> bias, const Conv2dParams& params) {
  const char* op = "conv2d";
  const std::int64_t outC = w.rank() == 4 ? w.shape[0] : 0;
  checkConvCommon(xShape, w, bias, outC, params.group, params.strides, params.dilations,
                  params.pads, op);
  const std::int64_t n = xShape[0], inC = xShape[1], inH = xShape[2], inW = xShape[3];
  const std::int64_t group = params.group;
  const std::int64_t groupInC = w.shape[1], kH = w.shape[2], kW = w.shape[3];
  if (inC % group != 0 || outC % group != 0) {
    fail("{}: channels in {} and out {} must both be divisible by group {}", op, inC, outC, group);
  }
  if (inC / group != groupInC) {
    fail("{}: input {} has {} channels, but weight {} with group {} expects {}", op,
         shapeString(xShape), inC, shapeString(w.shape), group, groupInC * group);
  }
  const auto [sH, sW] = params.strides;
  const auto [dH, dW] = params.dilations;
  const auto [padT, padL, padB, padR] = params.pads;
  const std::int64_t spanH = dH * (kH - 1) + 1, spanW = dW * (kW - 1) + 1;
  if (inH + padT + padB < spanH || inW + padL + padR < spanW) {
    fail("{}: kernel {}x{} (dilated {}x{}) does not fit the padded input {}", op, kH, kW, spanH,
         spanW, shapeString(xShape));
  }
  const std::int64_t outH = (inH + padT + padB - spanH) / sH + 1;
  const std::int64_t outW = (inW + padL + padR - spanW) / sW + 1;
  return Fp32ConvShape{n,  inC, inH, inW,  outC, groupInC, kH,   kW,   group, sH,
                       sW, dH,  dW,  padT, padL, padB,     padR, outH, outW};
}

}  // namespace detail

FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params) {
  checkConsistent(x, "conv2d");
  return Conv2dLayer(x.shape, w, bias, params).run(x);
}

FloatTensor convTranspose2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                            const ConvTranspose2dParams& params) {
  const char* op = "convTranspose2d";
  const std::int64_t outC = w.rank() == 4 ? w.shape[1] * params.group : 0;
  checkConsistent(x, op);
  detail::checkConvCommon(x.shape, w, bias, outC, params.group, params.strides, params.dilations,
                          params.pads, op);
  const std::int64_t n = x.shape[0], inC = x.shape[1], inH = x.shape[2], inW = x.shape[3];
  const std::int64_t group = params.group;
  const std::int64_t outPerGroup = w.shape[1], kH = w.shape[2], kW = w.shape[3];
  if (w.shape[0] != inC) {
    fail("{}: input {} has {} channels, but weight {} expects {}", op, shapeString(x.shape), inC,
         shapeString(w.shape), w.shape[0]);
  }
  if (inC % group != 0) {
    fail("{}: input channels {} must be divisible by group {}", op, inC, group);
  }
  const auto [sH, sW] = params.strides;
  const auto [dH, dW] = params.dilations;
  const auto [padT, padL, padB, padR] = params.pads;
  const auto [opH, opW] = params.outputPadding;
  if (opH < 0 || opW < 0 || (opH >= sH && opH >= dH) || (opW >= sW && opW >= dW)) {
    fail("{}: output padding must be non-negative and smaller than the stride or dilation", op);
  }
  const std::int64_t outH = sH * (inH - 1) + opH + dH * (kH - 1) + 1 - padT - padB;
  const std::int64_t outW = sW * (inW - 1) + opW + dW * (kW - 1) + 1 - padL - padR;
  if (outH < 1 || outW < 1) {
    fail("{}: pads leave an empty output ({}x{})", op, outH, outW);
  }
  FloatTensor y = makeFloatTensor({n, outC, outH, outW});
  const std::int64_t inPerGroup = inC / group;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      float* out = &y.data[static_cast<std::size_t>(((b * outC + oc) * outH) * outW)];
      const float init = bias.empty() ? 0.0F : bias[static_cast<std::size_t>(oc)];
      for (std::int64_t i = 0; i < outH * outW; ++i) {
        out[i] = init;
      }
      const std::int64_t g = oc / outPerGroup, m = oc % outPerGroup;
      for (std::int64_t icg = 0; icg < inPerGroup; ++icg) {
        const std::int64_t c = g * inPerGroup + icg;
        const float* in = &x.data[static_cast<std::size_t>(((b * inC + c) * inH) * inW)];
        const float* wk = &w.data[static_cast<std::size_t>(((c * outPerGroup + m) * kH) * kW)];
        for (std::int64_t iy = 0; iy < inH; ++iy) {
          for (std::int64_t ky = 0; ky < kH; ++ky) {
            const std::int64_t oy = iy * sH - padT + ky * dH;
            if (oy < 0 || oy >= outH) {
              continue;
            }
            for (std::int64_t ix = 0; ix < inW; ++ix) {
              const float v = in[iy * inW + ix];
              for (std::int64_t kx = 0; kx < kW; ++kx) {
                const std::int64_t ox = ix * sW - padL + kx * dW;
                if (ox >= 0 && ox < outW) {
                  out[oy * outW + ox] += v * wk[ky * kW + kx];
                }
              }
            }
          }
        }
      }
    }
  }
  return y;
}

}  // namespace npu::golden
