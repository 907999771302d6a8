// Conv2dInt8Layer: the sums of products of an int8 conv on oneDNN, everything else here.
//
// oneDNN computes s = sum u * w over a copy of the input made unsigned, u = x + 128, padded with
// zp_x + 128 (so padding contributes exactly what reading zp_x does), with s8 weights and s32
// results. Then, in wrapping 32-bit arithmetic,
//   acc = bias[c] + s - (zp_x + 128) * sum of channel c's weights  =  bias[c] + sum (x - zp_x) * w.
// Two oneDNN behaviours stand between s and the exact sum, and both are handled here:
// - Without VNNI, its kernels add pairs of u8 x s8 products in int16 (vpmaddubsw), which
//   saturates; the weights are then split as w = 64 * high + low with low in [0, 63] and high in
//   [-2, 1], two convolutions whose products cannot saturate, and s = 64 * s_high + s_low.
// - Its int8 kernels may pass s32 results through fp32 (to apply scales), exact only below 2^24 in
//   magnitude. A result r with |r| < 2^24 is exact (a larger s would round to at least 2^24); any
//   other is recomputed here from the padded input and the weights.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string_view>

#include "int8_conv_shape.h"
#include "npu/golden/float_tensor.h"
#include "npu/golden/int8_conv.h"
#include "npu/support/error.h"
#include "onednn_runtime.h"

namespace npu::golden {
namespace {

using dnnl::memory;
using onednn::dimsOf;

/// Results of smaller magnitude survive a trip through fp32 unchanged.
constexpr std::int32_t kExactInFloat = 1 << 24;

/// The split of the weights where products are paired in int16: w = high * 2^kLowBits + low.
constexpr int kLowBits = 6;

bool exactInFloat(std::int32_t v) {
  return v > -kExactInFloat && v < kExactInFloat;
}

/// 1 when the int32 whose bits are `bits` is not exactInFloat, else 0; branch-free, for the
/// vectorised passes: v + (2^24 - 1) lies in [0, 2^25 - 2] exactly when |v| < 2^24.
inline std::uint32_t outsideFloatRange(std::uint32_t bits) {
  return static_cast<std::uint32_t>(bits + (kExactInFloat - 1) >
                                    static_cast<std::uint32_t>(2 * kExactInFloat - 2));
}

/// Whether every value is exactInFloat: one pass the compiler vectorises (the common case, so the
/// element-wise check and its re-computation only run when something is out).
bool allExactInFloat(const std::int32_t* values, std::size_t count) {
  std::uint32_t outside = 0;
  for (std::size_t i = 0; i < count; ++i) {
    outside |= outsideFloatRange(static_cast<std::uint32_t>(values[i]));
  }
  return outside == 0;
}

// The output stage is compiled for AVX-512 (64-bit multiplies, variable shifts), AVX2 and
// baseline x86-64, chosen at run time; the same integer arithmetic in each, so the same bits.
#if defined(__x86_64__)
#define NPU_GOLDEN_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define NPU_GOLDEN_SIMD_CLONES
#endif

/// docs/numerics.md's conv output stage with single rounding, over `pixels` x `channels` sums:
/// acc = sum + offset[c] (wrapping), y = clamp(((acc * M[c] + 2^(t[c]-1)) >> t[c]) + zp, lo, hi).
/// Saturating the requant to int32 first changes nothing: lo and hi lie inside int8. Written as
/// one flat loop over channels so the compiler vectorises it. Returns allExactInFloat of the sums
/// taken as int32 (oneDNN's results, when the caller deferred their check to this pass).
NPU_GOLDEN_SIMD_CLONES bool finishSingleRounding(
    const std::uint32_t* sums, std::int64_t pixels, std::int64_t channels,
    const std::uint32_t* offsets, const std::int64_t* multipliers, const std::int64_t* shifts,
    const std::int64_t* halves, std::int64_t zeroPoint, std::int64_t lo, std::int64_t hi,
    std::int8_t* out) {
  std::uint32_t outside = 0;
  for (std::int64_t p = 0; p < pixels; ++p) {
    const std::uint32_t* s = sums + p * channels;
    std::int8_t* o = out + p * channels;
    for (std::int64_t c = 0; c < channels; ++c) {
      outside |= outsideFloatRange(s[c]);  // allExactInFloat, in the same pass
      const auto acc = static_cast<std::int64_t>(static_cast<std::int32_t>(s[c] + offsets[c]));
      const std::int64_t y = ((acc * multipliers[c] + halves[c]) >> shifts[c]) + zeroPoint;
      o[c] = static_cast<std::int8_t>(y < lo ? lo : (y > hi ? hi : y));
    }
  }
  return outside == 0;
}

}  // namespace

struct Conv2dInt8Layer::Prepared {
  std::vector<std::int64_t> inputShape;
  detail::Int8ConvShape shape;
  Conv2dInt8Params params;
  /// OHWI, for the exact re-computation of a sum oneDNN could not give exactly.
  std::vector<std::int8_t> weights;
  /// Per output channel: bias - (zp_x + 128) * (sum of the channel's weights), modulo 2^32.
  std::vector<std::uint32_t> offsets;
  /// Unset when there is nothing to sum (no outputs or no products) or oneDNN has no kernel for
  /// the shape; every sum is then computed here.
  std::optional<dnnl::convolution_forward> conv;
  memory::desc srcDesc;
  memory::desc dstDesc;
  /// The weights in oneDNN's layout: all of them, or the high and the low part.
  std::vector<memory> weightParts;
  std::size_t scratchpadBytes = 0;

  /// Per output channel, for the single-rounding output stage: M, t = 31 - shift and 2^(t-1).
  std::vector<std::int64_t> multipliers, shifts, halves;

  std::size_t outputCount() const {
    return static_cast<std::size_t>(shape.n * shape.outH * shape.outW * shape.outC);
  }
  /// The unsigned input keeps every step-th row and column of the padded input: a 1x1 kernel's
  /// stride (its windows read no others, so oneDNN then runs it at stride 1 on a quarter of the
  /// bytes for stride 2), 1 for any other kernel.
  std::int64_t stepH() const { return shape.kH == 1 ? shape.sH : 1; }
  std::int64_t stepW() const { return shape.kW == 1 ? shape.sW : 1; }
  std::int64_t bufferRows() const {
    return (shape.outH - 1) * (shape.sH / stepH()) + shape.dH * (shape.kH - 1) + 1;
  }
  std::int64_t bufferCols() const {
    return (shape.outW - 1) * (shape.sW / stepW()) + shape.dW * (shape.kW - 1) + 1;
  }
  std::size_t paddedInputBytes() const {
    return static_cast<std::size_t>(shape.n * bufferRows() * bufferCols() * shape.inC);
  }
  /// Writes the unsigned padded input into `u`: u = x + 128, padding zp_x + 128.
  void padInput(const Int8Tensor& x, std::uint8_t* u) const;
  /// sum u * w of output element `index` (NHWC), modulo 2^32.
  std::uint32_t exactSum(const std::uint8_t* u, std::size_t index) const;
  /// Writes sum u * w of every output element (NHWC), modulo 2^32, into `sums`. With one weight
  /// part and `deferCheck`, oneDNN's results are left unchecked and false is returned: the caller
  /// tests them in its own pass and calls patchSums if one is out of fp32's exact range.
  bool computeSums(const std::uint8_t* u, std::uint32_t* sums, bool deferCheck) const;
  /// Recomputes every sum of a single weight part's results that fp32 could not carry exactly.
  void patchSums(const std::uint8_t* u, std::uint32_t* sums) const;
};

Conv2dInt8Layer::Conv2dInt8Layer(std::vector<std::int64_t> inputShape, const Int8Tensor& w,
                                 const Conv2dInt8Params& params) {
  const onednn::OneThread oneThread;
  auto p = std::make_shared<Prepared>();
  p->shape = detail::checkConv2dInt8(inputShape, w, params, "conv2dInt8");
  p->inputShape = std::move(inputShape);
  p->params = params;
  p->weights = w.data;
  const detail::Int8ConvShape& s = p->shape;
  const std::int64_t taps = s.dotLength();
  const auto padValue = static_cast<std::uint32_t>(params.inputZeroPoint + 128);
  p->offsets.resize(static_cast<std::size_t>(s.outC));
  for (std::int64_t c = 0; c < s.outC; ++c) {
    std::uint32_t weightSum = 0;
    for (std::int64_t t = 0; t < taps; ++t) {
      weightSum += static_cast<std::uint32_t>(w.data[static_cast<std::size_t>(c * taps + t)]);
    }
    const std::uint32_t bias =
        params.bias.empty() ? 0U
                            : static_cast<std::uint32_t>(params.bias[static_cast<std::size_t>(c)]);
    p->offsets[static_cast<std::size_t>(c)] = bias - padValue * weightSum;
  }

  for (std::int64_t c = 0; c < s.outC; ++c) {
    const QuantizedMultiplier& m =
        params.multipliers[params.multipliers.size() == 1 ? 0 : static_cast<std::size_t>(c)];
    const int t = 31 - m.shift;
    p->multipliers.push_back(m.multiplier);
    p->shifts.push_back(t);
    p->halves.push_back(std::int64_t{1} << (t - 1));
  }

  if (s.n > 0 && s.outH > 0 && s.outW > 0 && s.outC > 0 && taps > 0) {
    p->srcDesc = memory::desc(dimsOf({s.n, s.inC, p->bufferRows(), p->bufferCols()}),
                              memory::data_type::u8, memory::format_tag::nhwc);
    p->dstDesc = memory::desc(dimsOf({s.n, s.outC, s.outH, s.outW}), memory::data_type::s32,
                              memory::format_tag::nhwc);
    const bool grouped = s.groups > 1;
    const memory::dims weightDims = grouped
                                        ? dimsOf({s.groups, s.outPerGroup(), s.groupC, s.kH, s.kW})
                                        : dimsOf({s.outC, s.groupC, s.kH, s.kW});
    const memory::desc anyWeights(weightDims, memory::data_type::s8, memory::format_tag::any);
    const memory::desc userWeights(weightDims, memory::data_type::s8,
                                   grouped ? memory::format_tag::gohwi : memory::format_tag::ohwi);
    try {
      const dnnl::convolution_forward::desc desc(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, p->srcDesc,
          anyWeights, p->dstDesc, dimsOf({s.sH / p->stepH(), s.sW / p->stepW()}),
          dimsOf({s.dH - 1, s.dW - 1}), dimsOf({0, 0}), dimsOf({0, 0}));
      dnnl::convolution_forward::primitive_desc pd(desc, onednn::primitiveAttributes(),
                                                   onednn::cpuEngine());
      // oneDNN 2.6.3's brgemm convolution (Debian 12) calls a kernel it never created for some
      // dense layers whose input channels are not a multiple of 4: 253 -> 244 channels, 7x7 on
      // 7x7 is a SEGV inside brgemm_kernel_execute (npu opcheck case 15,867 of seed 1; 252 or 256
      // channels run). Such layers take the next implementation, oneDNN's jit_int8 conv.
      while (!grouped && s.groupC % 4 != 0 &&
             std::string_view(pd.impl_info_str()).starts_with("brg")) {
        if (!pd.next_impl()) {
          throw dnnl::error(dnnl_unimplemented, "no implementation but brgemm");
        }
      }
      p->conv.emplace(pd);
      p->scratchpadBytes = pd.scratchpad_desc().get_size();
      std::vector<std::vector<std::int8_t>> parts;
      if (onednn::int8DotProductsAreExact()) {
        parts.push_back(w.data);
      } else {
        std::vector<std::int8_t> high(w.data.size()), low(w.data.size());
        for (std::size_t i = 0; i < w.data.size(); ++i) {
          high[i] = static_cast<std::int8_t>(w.data[i] >> kLowBits);
          low[i] = static_cast<std::int8_t>(w.data[i] & ((1 << kLowBits) - 1));
        }
        parts.push_back(std::move(high));
        parts.push_back(std::move(low));
      }
      for (std::vector<std::int8_t>& part : parts) {
        const memory user(userWeights, onednn::cpuEngine(), part.data());
        memory reordered(pd.weights_desc(), onednn::cpuEngine());
        onednn::reorder(user, reordered);
        p->weightParts.push_back(reordered);
      }
    } catch (const dnnl::error&) {
      // No oneDNN kernel for this shape: every sum is computed here (slower, same bits).
      p->conv.reset();
      p->weightParts.clear();
    }
  }
  m_prepared = std::move(p);
}

void Conv2dInt8Layer::Prepared::padInput(const Int8Tensor& x, std::uint8_t* u) const {
  const detail::Int8ConvShape& s = shape;
  const std::int64_t rows = bufferRows(), cols = bufferCols(), c = s.inC;
  const std::int64_t rowStep = stepH(), colStep = stepW();
  std::fill(u, u + paddedInputBytes(), static_cast<std::uint8_t>(params.inputZeroPoint + 128));
  for (std::int64_t b = 0; b < s.n; ++b) {
    for (std::int64_t r = 0; r < rows; ++r) {
      // Buffer row r is padded row r * rowStep, input row r * rowStep - padT.
      const std::int64_t iy = r * rowStep - s.padT;
      if (iy < 0 || iy >= s.inH) {
        continue;
      }
      const std::int8_t* src = &x.data[static_cast<std::size_t>(((b * s.inH + iy) * s.inW) * c)];
      std::uint8_t* dst = u + (b * rows + r) * cols * c;
      for (std::int64_t q = 0; q < cols; ++q) {
        const std::int64_t ix = q * colStep - s.padL;
        if (ix < 0 || ix >= s.inW) {
          continue;
        }
        for (std::int64_t i = 0; i < c; ++i) {
          dst[q * c + i] =
              static_cast<std::uint8_t>(static_cast<std::uint8_t>(src[ix * c + i]) ^ 0x80U);
        }
      }
    }
  }
}

std::uint32_t Conv2dInt8Layer::Prepared::exactSum(const std::uint8_t* u, std::size_t index) const {
  const detail::Int8ConvShape& s = shape;
  const auto i = static_cast<std::int64_t>(index);
  const std::int64_t c = i % s.outC;
  const std::int64_t ox = (i / s.outC) % s.outW;
  const std::int64_t oy = (i / (s.outC * s.outW)) % s.outH;
  const std::int64_t b = i / (s.outC * s.outW * s.outH);
  const std::int64_t g = c / s.outPerGroup();
  const std::int64_t rows = bufferRows(), cols = bufferCols();
  std::uint32_t sum = 0;
  for (std::int64_t ky = 0; ky < s.kH; ++ky) {
    for (std::int64_t kx = 0; kx < s.kW; ++kx) {
      const std::uint8_t* pixel = u +
                                  ((b * rows + (oy * s.sH + ky * s.dH) / stepH()) * cols +
                                   (ox * s.sW + kx * s.dW) / stepW()) *
                                      s.inC +
                                  g * s.groupC;
      const std::int8_t* tap =
          &weights[static_cast<std::size_t>(((c * s.kH + ky) * s.kW + kx) * s.groupC)];
      for (std::int64_t k = 0; k < s.groupC; ++k) {
        sum += static_cast<std::uint32_t>(static_cast<std::int32_t>(pixel[k]) * tap[k]);
      }
    }
  }
  return sum;
}

void Conv2dInt8Layer::Prepared::patchSums(const std::uint8_t* u, std::uint32_t* sums) const {
  for (std::size_t i = 0; i < outputCount(); ++i) {
    if (!exactInFloat(static_cast<std::int32_t>(sums[i]))) {
      sums[i] = exactSum(u, i);
    }
  }
}

bool Conv2dInt8Layer::Prepared::computeSums(const std::uint8_t* u, std::uint32_t* sums,
                                            bool deferCheck) const {
  const onednn::OneThread oneThread;
  const std::size_t count = outputCount();
  if (!conv) {
    for (std::size_t i = 0; i < count; ++i) {
      sums[i] = shape.dotLength() > 0 ? exactSum(u, i) : 0U;
    }
    return true;
  }
  const memory src(srcDesc, onednn::cpuEngine(), const_cast<std::uint8_t*>(u));
  // One part: oneDNN writes straight into `sums`; two: into thread buffers, combined below.
  std::array<std::int32_t*, 2> parts{};
  for (std::size_t k = 0; k < weightParts.size(); ++k) {
    parts[k] = weightParts.size() == 1
                   ? reinterpret_cast<std::int32_t*>(sums)
                   : static_cast<std::int32_t*>(onednn::threadBuffer(static_cast<int>(3 + k),
                                                                     count * sizeof(std::int32_t)));
    const memory dst(dstDesc, onednn::cpuEngine(), parts[k]);
    onednn::execute(*conv,
                    {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weightParts[k]}, {DNNL_ARG_DST, dst}},
                    scratchpadBytes);
  }
  if (weightParts.size() == 1) {
    if (deferCheck) {
      return false;
    }
    if (!allExactInFloat(parts[0], count)) {
      patchSums(u, sums);
    }
    return true;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::int32_t high = parts[0][i], low = parts[1][i];
    sums[i] = exactInFloat(high) && exactInFloat(low)
                  ? (static_cast<std::uint32_t>(high) << kLowBits) + static_cast<std::uint32_t>(low)
                  : exactSum(u, i);
  }
  return true;
}

std::vector<std::int32_t> Conv2dInt8Layer::accumulators(const Int8Tensor& x) const {
  const Prepared& p = *m_prepared;
  checkInput(x);
  auto* u = static_cast<std::uint8_t*>(onednn::threadBuffer(1, p.paddedInputBytes()));
  p.padInput(x, u);
  std::vector<std::uint32_t> sums(p.outputCount());
  p.computeSums(u, sums.data(), false);
  std::vector<std::int32_t> acc(sums.size());
  const auto outC = static_cast<std::size_t>(p.shape.outC);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    // C++20 defines the unsigned -> signed conversion as two's complement.
    acc[i] = static_cast<std::int32_t>(sums[i] + p.offsets[i % outC]);
  }
  return acc;
}

Int8Tensor Conv2dInt8Layer::run(const Int8Tensor& x) const {
  const Prepared& p = *m_prepared;
  checkInput(x);
  auto* u = static_cast<std::uint8_t*>(onednn::threadBuffer(1, p.paddedInputBytes()));
  p.padInput(x, u);
  auto* sums =
      static_cast<std::uint32_t*>(onednn::threadBuffer(2, p.outputCount() * sizeof(std::uint32_t)));
  const bool single = p.params.output.rounding == Rounding::Single;
  const bool checked = p.computeSums(u, sums, single);
  const std::span<const std::uint32_t> all(sums, p.outputCount());
  if (!single) {
    std::vector<std::int32_t> acc(all.size());
    const auto outC = static_cast<std::size_t>(p.shape.outC);
    for (std::size_t i = 0; i < all.size(); ++i) {
      acc[i] = static_cast<std::int32_t>(all[i] + p.offsets[i % outC]);
    }
    return detail::finishConv(acc, outputShape(), p.params);
  }
  Int8Tensor y = makeInt8Tensor(outputShape());
  const OutputStage& stage = p.params.output;
  const auto finish = [&] {
    return finishSingleRounding(sums, p.shape.n * p.shape.outH * p.shape.outW, p.shape.outC,
                                p.offsets.data(), p.multipliers.data(), p.shifts.data(),
                                p.halves.data(), stage.zeroPoint, stage.clipLo, stage.clipHi,
                                y.data.data());
  };
  if (!finish() && !checked) {
    // A sum past fp32's exact range (rare): recompute it and finish again.
    p.patchSums(u, sums);
    finish();
  }
  if (stage.lut) {
    for (std::int8_t& v : y.data) {
      v = lookUp(*stage.lut, v);
    }
  }
  return y;
}

void Conv2dInt8Layer::checkInput(const Int8Tensor& x) const {
  checkConsistent(x, "conv2dInt8");
  if (x.shape != m_prepared->inputShape) {
    fail("conv2dInt8: input {} does not match the shape {} the layer was prepared for",
         shapeString(x.shape), shapeString(m_prepared->inputShape));
  }
}

const std::vector<std::int64_t>& Conv2dInt8Layer::inputShape() const {
  return m_prepared->inputShape;
}

std::vector<std::int64_t> Conv2dInt8Layer::outputShape() const {
  return m_prepared->shape.outputShape();
}

}  // namespace npu::golden
