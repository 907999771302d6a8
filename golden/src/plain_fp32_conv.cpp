// The plain fp32 conv loops: direct loops accumulating whole output rows, the reference the
// oneDNN path is tested against.
#include <algorithm>
#include <array>

#include "fp32_conv_shape.h"
#include "npu/golden/plain_kernels.h"

// An AVX2 clone chosen at run time on x86-64; elsewhere the portable loop alone.
#if defined(__x86_64__)
#define NPU_GOLDEN_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define NPU_GOLDEN_AVX2_CLONE
#endif

namespace npu::golden::plain {
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

}  // namespace

FloatTensor conv2d(const FloatTensor& x, const FloatTensor& w, std::span<const float> bias,
                   const Conv2dParams& params) {
  checkConsistent(x, "conv2d");
  const detail::Fp32ConvShape s = detail::checkConv2d(x.shape, w, bias, params);
  const std::int64_t n = s.n, inC = s.inC, inH = s.inH, inW = s.inW, outC = s.outC;
  const std::int64_t group = s.group, groupInC = s.groupInC, kH = s.kH, kW = s.kW;
  const std::int64_t sH = s.sH, sW = s.sW, dH = s.dH, dW = s.dW, padT = s.padT, padL = s.padL;
  const std::int64_t outH = s.outH, outW = s.outW;
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

}  // namespace npu::golden::plain
