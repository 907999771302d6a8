// fp32 Conv and ConvTranspose: direct loops accumulating whole output rows.
#include "npu/golden/fp32_conv.h"

#include <algorithm>
#include <array>

#include "npu/support/error.h"

// An AVX2 clone chosen at run time on x86-64; elsewhere the portable loop alone.
#if defined(__x86_64__)
#define NPU_GOLDEN_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define NPU_GOLDEN_AVX2_CLONE
#endif

namespace npu::golden {
namespace {

/// out[ox] += weight * in[ox * stride + offset] for ox in [lo, hi). Element-wise, so the AVX2 clone
/// gives the same bits as the portable one (no FMA: a fused multiply-add would round differently).
NPU_GOLDEN_AVX2_CLONE void accumulateRow(float* out, const float* in, float weight, std::int64_t lo,
                                         std::int64_t hi, std::int64_t stride,
                                         std::int64_t offset) {
  if (stride == 1) {
    for (std::int64_t ox = lo; ox < hi; ++ox) {
      out[ox] += weight * in[ox + offset];
    }
  } else {
    for (std::int64_t ox = lo; ox < hi; ++ox) {
      out[ox] += weight * in[ox * stride + offset];
    }
  }
}

/// accumulateRow for four output channels sharing one input row: each input element is read
/// once. Every output still gets exactly out += weight * in, in the same order.
NPU_GOLDEN_AVX2_CLONE void accumulateRow4(float* __restrict out0, float* __restrict out1,
                                          float* __restrict out2, float* __restrict out3,
                                          const float* in, const float* weight, std::int64_t lo,
                                          std::int64_t hi, std::int64_t stride,
                                          std::int64_t offset) {
  const float w0 = weight[0];
  const float w1 = weight[1];
  const float w2 = weight[2];
  const float w3 = weight[3];
  if (stride == 1) {
    for (std::int64_t ox = lo; ox < hi; ++ox) {
      const float v = in[ox + offset];
      out0[ox] += w0 * v;
      out1[ox] += w1 * v;
      out2[ox] += w2 * v;
      out3[ox] += w3 * v;
    }
  } else {
    for (std::int64_t ox = lo; ox < hi; ++ox) {
      const float v = in[ox * stride + offset];
      out0[ox] += w0 * v;
      out1[ox] += w1 * v;
      out2[ox] += w2 * v;
      out3[ox] += w3 * v;
    }
  }
}

/// The kBlock (or fewer) output channels of one tap.
void accumulateBlock(const std::array<float*, 4>& out, std::int64_t block, std::int64_t outStart,
                     const float* in, const std::array<float, 4>& weight, std::int64_t lo,
                     std::int64_t hi, std::int64_t stride, std::int64_t offset) {
  if (block == 4) {
    accumulateRow4(out[0] + outStart, out[1] + outStart, out[2] + outStart, out[3] + outStart, in,
                   weight.data(), lo, hi, stride, offset);
    return;
  }
  for (std::int64_t j = 0; j < block; ++j) {
    accumulateRow(out[j] + outStart, in, weight[j], lo, hi, stride, offset);
  }
}

void checkCommon(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                 std::int64_t outChannels, std::int64_t group,
                 const std::array<std::int64_t, 2>& strides,
                 const std::array<std::int64_t, 2>& dilations,
                 const std::array<std::int64_t, 4>& pads, const char* op) {
  checkConsistent(x, op);
  checkConsistent(w, op);
  if (x.rank() != 4) {
    fail("{}: input must be 4-D NCHW, got {}", op, shapeString(x.shape));
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

}  // namespace

FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params) {
  const char* op = "conv2d";
  const std::int64_t outC = w.rank() == 4 ? w.shape[0] : 0;
  checkCommon(x, w, bias, outC, params.group, params.strides, params.dilations, params.pads, op);
  const std::int64_t n = x.shape[0], inC = x.shape[1], inH = x.shape[2], inW = x.shape[3];
  const std::int64_t group = params.group;
  const std::int64_t groupInC = w.shape[1], kH = w.shape[2], kW = w.shape[3];
  if (inC % group != 0 || outC % group != 0) {
    fail("{}: channels in {} and out {} must both be divisible by group {}", op, inC, outC, group);
  }
  if (inC / group != groupInC) {
    fail("{}: input {} has {} channels, but weight {} with group {} expects {}", op,
         shapeString(x.shape), inC, shapeString(w.shape), group, groupInC * group);
  }
  const auto [sH, sW] = params.strides;
  const auto [dH, dW] = params.dilations;
  const auto [padT, padL, padB, padR] = params.pads;
  const std::int64_t spanH = dH * (kH - 1) + 1, spanW = dW * (kW - 1) + 1;
  if (inH + padT + padB < spanH || inW + padL + padR < spanW) {
    fail("{}: kernel {}x{} (dilated {}x{}) does not fit the padded input {}", op, kH, kW, spanH,
         spanW, shapeString(x.shape));
  }
  const std::int64_t outH = (inH + padT + padB - spanH) / sH + 1;
  const std::int64_t outW = (inW + padL + padR - spanW) / sW + 1;
  FloatTensor y = makeFloatTensor({n, outC, outH, outW});
  const std::int64_t outPerGroup = outC / group;
  // Each output element sums bias, then ic, ky, kx in that order (the plain definition); up to
  // kBlock output channels share one pass over an input row, and each (ky, kx) tap only visits
  // the output columns whose input column is inside the image.
  constexpr std::int64_t kBlock = 4;
  for (std::int64_t b = 0; b < n; ++b) {
    std::int64_t block = 0;
    for (std::int64_t oc0 = 0; oc0 < outC; oc0 += block) {
      const std::int64_t g = oc0 / outPerGroup;
      // A block never straddles two groups.
      block = std::min({kBlock, outC - oc0, (g + 1) * outPerGroup - oc0});
      std::array<float*, kBlock> out{};
      for (std::int64_t j = 0; j < block; ++j) {
        out[j] = &y.data[static_cast<std::size_t>(((b * outC + oc0 + j) * outH) * outW)];
        const float init = bias.empty() ? 0.0F : bias[static_cast<std::size_t>(oc0 + j)];
        std::fill(out[j], out[j] + outH * outW, init);
      }
      for (std::int64_t ic = 0; ic < groupInC; ++ic) {
        const std::int64_t c = g * groupInC + ic;
        const float* in = &x.data[static_cast<std::size_t>(((b * inC + c) * inH) * inW)];
        for (std::int64_t ky = 0; ky < kH; ++ky) {
          for (std::int64_t kx = 0; kx < kW; ++kx) {
            std::array<float, kBlock> weight{};
            for (std::int64_t j = 0; j < block; ++j) {
              weight[j] = w.data[static_cast<std::size_t>(
                  (((oc0 + j) * groupInC + ic) * kH + ky) * kW + kx)];
            }
            // Output columns [oxLo, oxHi) read input columns inside [0, inW).
            const std::int64_t offset = kx * dW - padL;
            const std::int64_t oxLo = offset >= 0 ? 0 : (-offset + sW - 1) / sW;
            const std::int64_t oxHi =
                inW - 1 - offset < 0 ? 0 : std::min(outW, (inW - 1 - offset) / sW + 1);
            if (oxLo >= oxHi) {
              continue;
            }
            // Output rows [oyLo, oyHi) read input rows inside [0, inH).
            const std::int64_t rowOffset = ky * dH - padT;
            const std::int64_t oyLo = rowOffset >= 0 ? 0 : (-rowOffset + sH - 1) / sH;
            const std::int64_t oyHi =
                inH - 1 - rowOffset < 0 ? 0 : std::min(outH, (inH - 1 - rowOffset) / sH + 1);
            if (oyLo >= oyHi) {
              continue;
            }
            if (sH == 1 && sW == 1 && offset == 0 && oxLo == 0 && oxHi == outW && outW == inW) {
              // The rows are contiguous in both planes: one pass over all of them.
              const float* inRows = in + (oyLo + rowOffset) * inW;
              accumulateBlock(out, block, oyLo * outW, inRows, weight, 0, (oyHi - oyLo) * outW, 1,
                              0);
              continue;
            }
            for (std::int64_t oy = oyLo; oy < oyHi; ++oy) {
              const float* inRow = in + (oy * sH + rowOffset) * inW;
              accumulateBlock(out, block, oy * outW, inRow, weight, oxLo, oxHi, sW, offset);
            }
          }
        }
      }
    }
  }
  return y;
}

FloatTensor convTranspose2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                            const ConvTranspose2dParams& params) {
  const char* op = "convTranspose2d";
  const std::int64_t outC = w.rank() == 4 ? w.shape[1] * params.group : 0;
  checkCommon(x, w, bias, outC, params.group, params.strides, params.dilations, params.pads, op);
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
