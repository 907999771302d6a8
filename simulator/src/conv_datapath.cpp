// CONV on the MAC array: window multiply-accumulate, then the post-processing pipeline (bias,
// requant, zero point, clip, LUT). The zero-point correction is folded into a per-channel weight
// sum so the inner loop is a plain int8 dot product the compiler can vectorise; in int32
// two's-complement arithmetic sum((x - zp) * w) == sum(x * w) - zp * sum(w) exactly.
#include <algorithm>
#include <vector>

#include "datapath_ops.h"
#include "requant.h"

namespace npu::sim {
namespace {

std::int32_t dot(const std::int8_t* x, const std::int8_t* w, std::int64_t n) {
  std::int32_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    sum += static_cast<std::int32_t>(x[i]) * static_cast<std::int32_t>(w[i]);
  }
  return sum;
}

std::int8_t postProcess(const isa::Conv& conv, const SramState& sram, std::int32_t acc,
                        std::int64_t oc) {
  const std::int32_t multiplier = readParam(sram.parameter, conv.param_addr + 12 * oc + 4);
  const std::int32_t shift = readParam(sram.parameter, conv.param_addr + 12 * oc + 8);
  const std::int64_t scaled =
      static_cast<std::int64_t>(requant(acc, multiplier, shift, conv.double_round != 0)) +
      conv.out_zp;
  auto y = static_cast<std::int32_t>(std::clamp<std::int64_t>(scaled, conv.clip_lo, conv.clip_hi));
  if (conv.use_lut != 0) {
    y = lookup(sram.parameter, conv.lut_addr, y);
  }
  return static_cast<std::int8_t>(y);
}

}  // namespace

void executeConv(const isa::Conv& conv, SramState& sram) {
  const std::int64_t inC = conv.in_c;
  const std::int64_t outC = conv.out_c;
  const std::int64_t taps = conv.kh * conv.kw;
  const std::int8_t* input = sram.input.data() + conv.inp_addr;
  const std::int8_t* weight = sram.weight.data() + conv.wgt_addr;
  const bool depthwise = conv.depthwise != 0;

  // Per-channel weight sums for the zero-point correction.
  std::vector<std::int32_t> weightSum(static_cast<std::size_t>(outC), 0);
  const std::int64_t perChannel = depthwise ? taps : taps * inC;
  for (std::int64_t oc = 0; oc < outC; ++oc) {
    for (std::int64_t i = 0; i < perChannel; ++i) {
      weightSum[static_cast<std::size_t>(oc)] += weight[oc * perChannel + i];
    }
  }
  // Depthwise weights transposed to [ky][kx][c] so the channel loop is contiguous.
  std::vector<std::int8_t> depthwiseWeight;
  if (depthwise) {
    depthwiseWeight.resize(static_cast<std::size_t>(taps * outC));
    for (std::int64_t c = 0; c < outC; ++c) {
      for (std::int64_t t = 0; t < taps; ++t) {
        depthwiseWeight[static_cast<std::size_t>(t * outC + c)] = weight[c * taps + t];
      }
    }
  }

  std::vector<std::int32_t> acc(static_cast<std::size_t>(outC));
  for (std::int64_t oy = 0; oy < conv.out_h; ++oy) {
    for (std::int64_t ox = 0; ox < conv.out_w; ++ox) {
      const std::int64_t pixel = (oy * conv.out_w + ox) * outC;
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        const std::int32_t start =
            conv.acc_init != 0
                ? readParam(sram.parameter, conv.param_addr + 12 * oc)
                : sram.accumulator[static_cast<std::size_t>(conv.acc_addr + pixel + oc)];
        acc[static_cast<std::size_t>(oc)] = static_cast<std::int32_t>(
            static_cast<std::uint32_t>(start) -
            static_cast<std::uint32_t>(conv.in_zp * weightSum[static_cast<std::size_t>(oc)]));
      }
      for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
        for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
          const std::int64_t iy = oy * conv.sh + ky * conv.dh;
          const std::int64_t ix = ox * conv.sw + kx * conv.dw;
          const std::int8_t* x = input + (iy * conv.in_w + ix) * inC;
          if (depthwise) {
            const std::int8_t* w = depthwiseWeight.data() + (ky * conv.kw + kx) * outC;
            for (std::int64_t c = 0; c < outC; ++c) {
              acc[static_cast<std::size_t>(c)] += static_cast<std::int32_t>(x[c]) * w[c];
            }
          } else {
            for (std::int64_t oc = 0; oc < outC; ++oc) {
              acc[static_cast<std::size_t>(oc)] +=
                  dot(x, weight + ((oc * conv.kh + ky) * conv.kw + kx) * inC, inC);
            }
          }
        }
      }
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        const std::int32_t value = acc[static_cast<std::size_t>(oc)];
        if (conv.finalize != 0) {
          sram.output[static_cast<std::size_t>(conv.out_addr + pixel + oc)] =
              postProcess(conv, sram, value, oc);
        } else {
          sram.accumulator[static_cast<std::size_t>(conv.acc_addr + pixel + oc)] = value;
        }
      }
    }
  }
}

}  // namespace npu::sim
