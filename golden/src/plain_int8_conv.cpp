// The plain int8 conv loops: docs/numerics.md's formula directly, the reference the oneDNN path is
// tested against. For speed the input is first copied into a padded int16 buffer holding x - zp_x
// (padding becomes 0, which is what reading zp_x contributes) and the 32-bit sums are taken as
// unsigned so wrapping is well defined.
#include <algorithm>

#include "int8_conv_shape.h"
#include "npu/golden/plain_kernels.h"

namespace npu::golden::plain {
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

}  // namespace

std::vector<std::int32_t> conv2dInt8Accumulators(const Int8Tensor& x, const Int8Tensor& w,
                                                 const Conv2dInt8Params& p) {
  checkConsistent(x, "conv2dInt8");
  const detail::Int8ConvShape s = detail::checkConv2dInt8(x.shape, w, p, "conv2dInt8");
  const std::int64_t n = s.n, inH = s.inH, inW = s.inW, inC = s.inC;
  const std::int64_t outC = s.outC, kH = s.kH, kW = s.kW, groupC = s.groupC;
  const std::int64_t sH = s.sH, sW = s.sW, dH = s.dH, dW = s.dW, padT = s.padT, padL = s.padL;
  const std::int64_t padH = inH + s.padT + s.padB, padW = inW + s.padL + s.padR;
  const std::int64_t outH = s.outH, outW = s.outW;

  std::vector<std::uint32_t> bias(static_cast<std::size_t>(outC), 0);
  for (std::size_t c = 0; c < bias.size(); ++c) {
    bias[c] = p.bias.empty() ? 0U : static_cast<std::uint32_t>(p.bias[c]);
  }
  const bool depthwise = s.groups == inC && outC == inC;
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

  std::vector<std::int32_t> result(static_cast<std::size_t>(n * outH * outW * outC));
  std::vector<std::int16_t> in(static_cast<std::size_t>(padH * padW * inC));
  std::vector<std::uint32_t> acc(static_cast<std::size_t>(outC));
  const std::int64_t outPerGroup = s.outPerGroup();
  std::int32_t* out = result.data();
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
        // C++20 defines the unsigned -> signed conversion as two's complement.
        for (std::uint32_t a : acc) {
          *out++ = static_cast<std::int32_t>(a);
        }
      }
    }
  }
  return result;
}

Int8Tensor conv2dInt8(const Int8Tensor& x, const Int8Tensor& w, const Conv2dInt8Params& params) {
  const std::vector<std::int32_t> acc = plain::conv2dInt8Accumulators(x, w, params);
  const detail::Int8ConvShape s = detail::checkConv2dInt8(x.shape, w, params, "conv2dInt8");
  return detail::finishConv(acc, s.outputShape(), params);
}

}  // namespace npu::golden::plain
