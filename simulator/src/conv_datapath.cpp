// CONV on the MAC array: window multiply-accumulate, then the post-processing pipeline (bias,
// requant, zero point, clip, LUT), one output row at a time. Dense convs on a CPU with VNNI run
// u8 x s8 kernels over the windows where they lie (int8_kernels.h), depthwise convs int8 x int32
// kernels (depthwise_kernels.h); the zero points' share of the sums is taken off once per channel.
// Other CPUs and shapes gather each window into an int16 patch with the zero point subtracted.
#include <algorithm>
#include <cstring>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "datapath_ops.h"
#include "npu/simulator/datapath.h"
#include "npu/simulator/depthwise_kernels.h"
#include "npu/simulator/int16_kernels.h"
#include "npu/simulator/int8_kernels.h"
#include "npu/simulator/requant_kernels.h"
#include "npu/simulator/timing.h"
#include "requant.h"

namespace npu::sim {
namespace {

// Below this many MACs per thread, starting a thread costs more than it saves.
constexpr std::int64_t kMinMacsPerThread = std::int64_t{1} << 21;

/// One output channel's parameter record (bias, multiplier, shift), read once per instruction
/// rather than once per pixel.
struct ChannelParams {
  std::int32_t bias = 0;
  std::int32_t multiplier = 0;
  std::int32_t shift = 0;
};

std::vector<ChannelParams> channelParams(const isa::Conv& conv, const SramState& sram) {
  std::vector<ChannelParams> params(static_cast<std::size_t>(conv.out_c));
  for (std::int64_t oc = 0; oc < conv.out_c; ++oc) {
    params[static_cast<std::size_t>(oc)] = {
        readParam(sram.parameter, conv.param_addr + 12 * oc),
        readParam(sram.parameter, conv.param_addr + 12 * oc + 4),
        readParam(sram.parameter, conv.param_addr + 12 * oc + 8)};
  }
  return params;
}

/// The post-processing fields of one CONV, copied out of the instruction: the output stores are
/// int8, which may alias anything, so fields read through `conv` would be reloaded per byte.
struct Epilogue {
  std::int64_t clipLo = 0;
  std::int64_t clipHi = 0;
  std::int64_t outZp = 0;
  bool doubleRound = false;
  const std::uint8_t* lut = nullptr;  // the 256-entry table, or null
};

Epilogue epilogueOf(const isa::Conv& conv, const SramState& sram) {
  return {
      conv.clip_lo, conv.clip_hi, conv.out_zp, conv.double_round != 0,
      conv.finalize != 0 && conv.use_lut != 0 ? sram.parameter.data() + conv.lut_addr : nullptr};
}

std::int8_t postProcess(const Epilogue& epilogue, std::int32_t acc, const ChannelParams& params) {
  const std::int64_t scaled = static_cast<std::int64_t>(requant(
                                  acc, params.multiplier, params.shift, epilogue.doubleRound)) +
                              epilogue.outZp;
  const auto y =
      static_cast<std::int32_t>(std::clamp<std::int64_t>(scaled, epilogue.clipLo, epilogue.clipHi));
  // The LUT read as lookup() does: entry y + 128.
  return static_cast<std::int8_t>(epilogue.lut != nullptr ? epilogue.lut[y + 128] : y);
}

/// The per-channel constants of the single-rounding requant (requant_kernels.h).
struct SingleRoundChannels {
  std::vector<std::int32_t> multiplier;
  std::vector<std::int32_t> rightShift;  // t = 31 - shift
};

SingleRoundChannels singleRoundChannels(const std::vector<ChannelParams>& params) {
  SingleRoundChannels channels;
  for (const ChannelParams& c : params) {
    channels.multiplier.push_back(c.multiplier);
    channels.rightShift.push_back(31 - clampShift(c.shift));
  }
  return channels;
}

/// Dense weight rows [out_c][tap][in_c] in vpdpbusd's layout: groups of 4 input channels,
/// 16-channel blocks of output channels, zero padding to whole groups and blocks.
Int8PackedWeights packInt8Weights(const std::int8_t* rows, std::int64_t outC, std::int64_t taps,
                                  std::int64_t inC) {
  const std::int64_t groups = (inC + 3) / 4;
  Int8PackedWeights packed;
  packed.channels = (outC + kInt8ChannelBlock - 1) / kInt8ChannelBlock * kInt8ChannelBlock;
  packed.bytes.assign(static_cast<std::size_t>(taps * groups * packed.channels * 4), 0);
  std::int8_t* const bytes = packed.bytes.data();
  for (std::int64_t c = 0; c < outC; ++c) {
    for (std::int64_t t = 0; t < taps; ++t) {
      const std::int8_t* row = rows + (c * taps + t) * inC;
      std::int8_t* group = bytes + (t * groups * packed.channels + c) * 4;
      // Whole groups as fixed-size copies (one move each; a variable length would be a memmove
      // call per group), then the tail.
      std::int64_t i = 0;
      for (; i + 4 <= inC; i += 4, group += packed.channels * 4) {
        std::memcpy(group, row + i, 4);
      }
      if (i < inC) {
        std::memcpy(group, row + i, static_cast<std::size_t>(inC - i));
      }
    }
  }
  return packed;
}

/// The input with every byte offset by +128 (x ^ 0x80) and each pixel's channels padded to
/// `channelStride` bytes.
std::vector<std::uint8_t> unsignedInput(const std::int8_t* input, std::int64_t pixels,
                                        std::int64_t channels, std::int64_t channelStride) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(pixels * channelStride), 0);
  const auto* in = reinterpret_cast<const std::uint8_t*>(input);
  std::uint8_t* o = out.data();
  if (channelStride == channels) {
    // Eight bytes at a time: byte loops over int8 and uint8 pointers may alias, so GCC leaves
    // them scalar.
    const std::int64_t n = pixels * channels;
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, in + i, 8);
      word ^= 0x8080808080808080ULL;
      std::memcpy(o + i, &word, 8);
    }
    for (; i < n; ++i) {
      o[i] = static_cast<std::uint8_t>(in[i] ^ 0x80U);
    }
    return out;
  }
  for (std::int64_t px = 0; px < pixels; ++px) {
    for (std::int64_t c = 0; c < channels; ++c) {
      o[px * channelStride + c] = static_cast<std::uint8_t>(in[px * channels + c] ^ 0x80U);
    }
  }
  return out;
}

std::int32_t wrappingAdd(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

}  // namespace

std::int64_t convDatapathParts(const isa::Conv& conv, unsigned threads) {
  // Threads only pay off on large instructions; the split never changes a result.
  const std::int64_t macs = static_cast<std::int64_t>(macCount(conv));
  if (macs < kMinMacsPerThread) {
    return 1;
  }
  return std::min<std::int64_t>(
      {static_cast<std::int64_t>(std::max(threads, 1U)), conv.out_h, macs / kMinMacsPerThread});
}

namespace {

/// One CONV's input, weights and channel constants prepared for its kernels, and the output rows
/// computed from them. A row reads only the shared operands and writes only its own output or
/// accumulator entries, so row ranges can run on separate threads.
class ConvRows {
 public:
  /// Prepares the input, weights and channel constants for the kernels this CPU and CONV use.
  ConvRows(const isa::Conv& conv, SramState& sram)
      : m_conv(conv),
        m_sram(sram),
        m_inC(conv.in_c),
        m_outC(conv.out_c),
        m_outW(conv.out_w),
        m_taps(conv.kh * conv.kw),
        m_depthwise(conv.depthwise != 0),
        m_inH((conv.out_h - 1) * conv.sh + (conv.kh - 1) * conv.dh + 1),
        m_weight(sram.weight.data() + conv.wgt_addr),
        m_inputBytes(sram.input.data() + conv.inp_addr),
        m_inputSize(static_cast<std::size_t>(m_inH * conv.in_w * m_inC)),
        m_int8(int8DotKernels()),
        m_depthwiseKernel(depthwiseKernels()),
        m_kernels(int16Kernels()),
        m_requant(requantKernels()) {
    // The parameter records are read only by an instruction that uses them (acc_init: the bias;
    // finalize: multiplier and shift), as its footprint declares and checkBounds checks: a middle
    // chunk of an input-channel split may carry any param_addr.
    m_params = conv.acc_init != 0 || conv.finalize != 0
                   ? channelParams(conv, sram)
                   : std::vector<ChannelParams>(static_cast<std::size_t>(m_outC));
    transposeWeights();
    m_patchLength = m_taps * m_inC;
    // Dense convs on a CPU with VNNI: u8 x s8 products (int8_kernels.h) of the input offset by
    // +128 and the packed weights; the offset's share, (128 + in_zp) * sum(w), comes off per
    // channel.
    m_useInt8 = !m_depthwise && m_int8.isa != "portable";
    // Depthwise convs with one filter per channel: int8 inputs times int32 weights
    // (depthwise_kernels.h); in_zp * sum(w) comes off per channel.
    m_channelwise = m_depthwise && m_inC == m_outC;
    m_channelOffset.assign(static_cast<std::size_t>(m_outC), 0);
    // The unsigned input keeps each pixel's channels padded to whole 4-byte groups (vpdpbusd's
    // unit); the padding's weights are zero, so its bytes add nothing.
    m_groups = (m_inC + 3) / 4;
    m_channelStride = m_groups * 4;
    fillTapOffsets();
    m_depthwiseInput = m_inputBytes;
    if (m_useInt8) {
      prepareInt8();
    } else if (m_channelwise) {
      prepareChannelwise();
    } else {
      prepareInt16();
    }
    prepareRowEnds();
  }

  /// Computes and writes output rows [rowBegin, rowEnd).
  void run(std::int64_t rowBegin, std::int64_t rowEnd) const {
    const std::int64_t stride = m_useInt8 ? m_packed.channels : m_outC;
    std::vector<std::int32_t> acc(static_cast<std::size_t>(m_outW * stride));
    std::vector<std::int16_t> patch(
        m_useInt8 || m_depthwise ? 0 : static_cast<std::size_t>(m_patchLength));
    for (std::int64_t oy = rowBegin; oy < rowEnd; ++oy) {
      if (m_useInt8) {
        const Int8WindowRow windows{
            .input = m_inputU8.data() + oy * m_conv.sh * m_conv.in_w * m_channelStride,
            .pixels = m_outW,
            .pixelStride = m_conv.sw * m_channelStride,
            .tapOffset = m_tapOffset.data(),
            .taps = m_taps,
            .groups = m_groups};
        m_int8.dotRow(windows, m_packed, acc.data());
        initialRow(oy, acc.data(), stride, true);
      } else if (m_channelwise) {
        // With acc_init the kernel starts every pixel from bias and offset itself.
        if (m_conv.acc_init == 0) {
          initialRow(oy, acc.data(), stride, false);
        }
        const DepthwiseRow windows{
            .input = m_depthwiseInput + oy * m_conv.sh * m_conv.in_w * m_inC,
            .pixels = m_outW,
            .pixelStride = m_conv.sw * m_inC,
            .tapOffset = m_tapOffset.data(),
            .taps = m_taps,
            .channels = m_outC,
            .initial = m_conv.acc_init != 0 ? m_biasAndOffset.data() : nullptr};
        m_depthwiseKernel.accumulateRow(windows, m_depthwiseWeights.data(), acc.data());
      } else {
        initialRow(oy, acc.data(), stride, false);
        int16Row(oy, acc.data(), patch.data());
      }
      finishRow(oy, acc.data(), stride);
    }
  }

 private:
  /// Dense weights as rows of [kh][kw][in_c], one per output channel: a matmul's operand stored
  /// [in_c][out_c] (wgt_kn, 1x1 only) is transposed into that order first.
  void transposeWeights() {
    m_weightRows = m_weight;
    if (m_conv.wgt_kn != 0) {
      m_transposed.resize(static_cast<std::size_t>(m_outC * m_inC));
      for (std::int64_t c = 0; c < m_outC; ++c) {
        for (std::int64_t i = 0; i < m_inC; ++i) {
          m_transposed[static_cast<std::size_t>(c * m_inC + i)] = m_weight[i * m_outC + c];
        }
      }
      m_weightRows = m_transposed.data();
    }
  }

  /// The input offset of each tap (ky, kx) from its window's first pixel.
  void fillTapOffsets() {
    m_tapOffset.resize(static_cast<std::size_t>(m_taps));
    const std::int64_t tapStride = m_useInt8 ? m_channelStride : m_inC;
    for (std::int64_t ky = 0; ky < m_conv.kh; ++ky) {
      for (std::int64_t kx = 0; kx < m_conv.kw; ++kx) {
        m_tapOffset[static_cast<std::size_t>(ky * m_conv.kw + kx)] =
            (ky * m_conv.dh * m_conv.in_w + kx * m_conv.dw) * tapStride;
      }
    }
  }

  /// Sets channel oc's offset to -(offset * weightSum), wrapping.
  void takeOff(std::int64_t oc, std::uint32_t offset, std::uint32_t weightSum) {
    m_channelOffset[static_cast<std::size_t>(oc)] =
        static_cast<std::int32_t>(0U - offset * weightSum);
  }

  /// The unsigned input, the packed weights and the +128 offset's share of each channel.
  void prepareInt8() {
    m_inputU8 = unsignedInput(m_inputBytes, m_inH * m_conv.in_w, m_inC, m_channelStride);
    m_packed = packInt8Weights(m_weightRows, m_outC, m_taps, m_inC);
    const auto offset = static_cast<std::uint32_t>(128 + m_conv.in_zp);
    for (std::int64_t oc = 0; oc < m_outC; ++oc) {
      std::uint32_t sum = 0;
      for (std::int64_t k = 0; k < m_patchLength; ++k) {
        sum += static_cast<std::uint32_t>(
            static_cast<std::int32_t>(m_weightRows[oc * m_patchLength + k]));
      }
      takeOff(oc, offset, sum);
    }
  }

  /// Depthwise: the input as it lies, or a copy when a cascade's output could overwrite it; the
  /// weights as int32 [tap][channel] and the zero point's share of each channel.
  void prepareChannelwise() {
    if (m_conv.out_buf != 0) {
      m_inputCopy.assign(m_inputBytes, m_inputBytes + m_inputSize);
      m_depthwiseInput = m_inputCopy.data();
    }
    m_depthwiseWeights.resize(static_cast<std::size_t>(m_taps * m_outC));
    for (std::int64_t c = 0; c < m_outC; ++c) {
      std::uint32_t sum = 0;
      for (std::int64_t t = 0; t < m_taps; ++t) {
        const std::int8_t w = m_weight[c * m_taps + t];
        m_depthwiseWeights[static_cast<std::size_t>(t * m_outC + c)] = w;
        sum += static_cast<std::uint32_t>(std::int32_t{w});
      }
      takeOff(c, static_cast<std::uint32_t>(m_conv.in_zp), sum);
    }
  }

  /// int16: the input with the zero point subtracted (x - zp is in [-255, 255], products fit
  /// int16 x int16 -> int32 exactly) and the weights widened.
  void prepareInt16() {
    m_input.resize(m_inputSize);
    for (std::size_t i = 0; i < m_inputSize; ++i) {
      m_input[i] = static_cast<std::int16_t>(m_inputBytes[i] - m_conv.in_zp);
    }
    if (m_depthwise) {
      // [tap][channel]: each tap is one contiguous channel loop.
      m_wide.resize(static_cast<std::size_t>(m_taps * m_outC));
      for (std::int64_t c = 0; c < m_outC; ++c) {
        for (std::int64_t t = 0; t < m_taps; ++t) {
          m_wide[static_cast<std::size_t>(t * m_outC + c)] = m_weight[c * m_taps + t];
        }
      }
    } else {
      // Each output channel is one row that a pixel's patch (the window gathered in the same
      // order) is dotted with.
      m_wide.assign(m_weightRows, m_weightRows + m_outC * m_patchLength);
    }
  }

  /// The constants a row starts (bias plus offset) and ends (epilogue, destination) with.
  void prepareRowEnds() {
    m_biasAndOffset.resize(static_cast<std::size_t>(m_outC));
    for (std::int64_t oc = 0; oc < m_outC; ++oc) {
      const auto i = static_cast<std::size_t>(oc);
      m_biasAndOffset[i] = wrappingAdd(m_params[i].bias, m_channelOffset[i]);
    }
    m_epilogue = epilogueOf(m_conv, m_sram);
    // A cascade's CONV writes its int8 tile into the input SRAM for the next CONV to read; the
    // input was copied above (unsigned, widened, or as it is for a depthwise conv) before any
    // output is written, so the two never alias mid-instruction.
    std::vector<std::int8_t>& destination = m_conv.out_buf != 0 ? m_sram.input : m_sram.output;
    m_outputBase = destination.data() + m_conv.out_addr;
    // The requant kernels take single rounding without a LUT and a clip range that is not empty.
    m_vectorEpilogue = !m_epilogue.doubleRound && m_epilogue.lut == nullptr &&
                       m_epilogue.clipLo <= m_epilogue.clipHi;
    if (m_vectorEpilogue) {
      m_singleRound = singleRoundChannels(m_params);
    }
    // The int8 tile's pixel pitch: out_c, or wider with out_gap (other CONVs fill the gaps).
    m_outPitch = m_outC * (1 + m_conv.out_gap);
  }

  /// The sums of output row oy are kept `stride` apart. The initial value of each (the bias, or
  /// what an earlier instruction left, plus the channel's offset) is written (add = false) or
  /// added to what the row holds (add = true).
  void initialRow(std::int64_t oy, std::int32_t* acc, std::int64_t stride, bool add) const {
    for (std::int64_t ox = 0; ox < m_outW; ++ox) {
      std::int32_t* sums = acc + ox * stride;
      const std::int32_t* initial = m_biasAndOffset.data();
      const std::int32_t* offset = m_channelOffset.data();
      if (m_conv.acc_init == 0) {
        const std::int32_t* earlier =
            m_sram.accumulator.data() + m_conv.acc_addr + (oy * m_outW + ox) * m_outC;
        for (std::int64_t oc = 0; oc < m_outC; ++oc) {
          const std::int32_t value = wrappingAdd(earlier[oc], offset[oc]);
          sums[oc] = add ? wrappingAdd(sums[oc], value) : value;
        }
        continue;
      }
      for (std::int64_t oc = 0; oc < m_outC; ++oc) {
        sums[oc] = add ? wrappingAdd(sums[oc], initial[oc]) : initial[oc];
      }
    }
  }

  /// Adds output row oy's MACs to its sums on the int16 kernels: per tap for a depthwise conv,
  /// otherwise each pixel's window gathered into `patch` and dotted with every weight row.
  void int16Row(std::int64_t oy, std::int32_t* acc, std::int16_t* patch) const {
    for (std::int64_t ox = 0; ox < m_outW; ++ox) {
      std::int32_t* pixelAcc = acc + ox * m_outC;
      if (m_depthwise) {
        for (std::int64_t ky = 0; ky < m_conv.kh; ++ky) {
          for (std::int64_t kx = 0; kx < m_conv.kw; ++kx) {
            const std::int64_t iy = oy * m_conv.sh + ky * m_conv.dh;
            const std::int64_t ix = ox * m_conv.sw + kx * m_conv.dw;
            m_kernels.multiplyAccumulate(pixelAcc, m_input.data() + (iy * m_conv.in_w + ix) * m_inC,
                                         m_wide.data() + (ky * m_conv.kw + kx) * m_outC, m_outC);
          }
        }
        continue;
      }
      std::int16_t* out = patch;
      for (std::int64_t ky = 0; ky < m_conv.kh; ++ky) {
        for (std::int64_t kx = 0; kx < m_conv.kw; ++kx) {
          const std::int64_t iy = oy * m_conv.sh + ky * m_conv.dh;
          const std::int64_t ix = ox * m_conv.sw + kx * m_conv.dw;
          const std::int16_t* x = m_input.data() + (iy * m_conv.in_w + ix) * m_inC;
          std::copy(x, x + m_inC, out);
          out += m_inC;
        }
      }
      for (std::int64_t oc = 0; oc < m_outC; ++oc) {
        // Wrapping int32 addition, as the hardware accumulator.
        pixelAcc[oc] = wrappingAdd(
            pixelAcc[oc], m_kernels.dot(patch, m_wide.data() + oc * m_patchLength, m_patchLength));
      }
    }
  }

  /// Writes output row oy: requantized bytes (finalize) or the accumulators themselves.
  void finishRow(std::int64_t oy, const std::int32_t* acc, std::int64_t stride) const {
    const std::int64_t row = oy * m_outW * m_outC;
    if (m_conv.finalize != 0 && m_vectorEpilogue) {
      std::vector<std::int8_t> gathered(
          m_outPitch == m_outC ? 0 : static_cast<std::size_t>(m_outW * m_outC));
      m_requant.requantRow({.acc = acc,
                            .stride = stride,
                            .pixels = m_outW,
                            .channels = m_outC,
                            .multiplier = m_singleRound.multiplier.data(),
                            .rightShift = m_singleRound.rightShift.data(),
                            .outZp = m_epilogue.outZp,
                            .clipLo = m_epilogue.clipLo,
                            .clipHi = m_epilogue.clipHi,
                            .out = m_outPitch == m_outC ? m_outputBase + row : gathered.data()});
      for (std::int64_t ox = 0; ox < m_outW && m_outPitch != m_outC; ++ox) {
        std::copy_n(gathered.data() + ox * m_outC, m_outC,
                    m_outputBase + (oy * m_outW + ox) * m_outPitch);
      }
      return;
    }
    // A local copy: the int8 stores below may alias anything a member could be read through.
    const Epilogue epilogue = m_epilogue;
    for (std::int64_t ox = 0; ox < m_outW; ++ox) {
      const std::int32_t* pixelAcc = acc + ox * stride;
      const std::int64_t pixel = row + ox * m_outC;
      if (m_conv.finalize == 0) {
        std::copy(
            pixelAcc, pixelAcc + m_outC,
            m_sram.accumulator.begin() + static_cast<std::ptrdiff_t>(m_conv.acc_addr + pixel));
        continue;
      }
      std::int8_t* out = m_outputBase + (oy * m_outW + ox) * m_outPitch;
      for (std::int64_t oc = 0; oc < m_outC; ++oc) {
        out[oc] = postProcess(epilogue, pixelAcc[oc], m_params[static_cast<std::size_t>(oc)]);
      }
    }
  }

  const isa::Conv& m_conv;
  SramState& m_sram;
  const std::int64_t m_inC;
  const std::int64_t m_outC;
  const std::int64_t m_outW;
  const std::int64_t m_taps;
  const bool m_depthwise;
  const std::int64_t m_inH;
  const std::int8_t* const m_weight;
  const std::int8_t* const m_inputBytes;
  const std::size_t m_inputSize;
  const Int8DotKernels& m_int8;
  const DepthwiseKernels& m_depthwiseKernel;
  const Int16Kernels& m_kernels;
  const RequantKernels& m_requant;
  std::vector<ChannelParams> m_params;
  const std::int8_t* m_weightRows = nullptr;
  std::vector<std::int8_t> m_transposed;
  std::int64_t m_patchLength = 0;
  bool m_useInt8 = false;
  bool m_channelwise = false;
  // Added to every accumulator of a channel besides its MACs (wrapping, as the accumulator).
  std::vector<std::int32_t> m_channelOffset;
  std::int64_t m_groups = 0;
  std::int64_t m_channelStride = 0;
  std::vector<std::int64_t> m_tapOffset;
  std::vector<std::uint8_t> m_inputU8;
  Int8PackedWeights m_packed;
  const std::int8_t* m_depthwiseInput = nullptr;
  std::vector<std::int8_t> m_inputCopy;
  std::vector<std::int32_t> m_depthwiseWeights;  // [tap][channel]
  std::vector<std::int16_t> m_input;
  std::vector<std::int16_t> m_wide;
  std::vector<std::int32_t> m_biasAndOffset;
  Epilogue m_epilogue;
  std::int8_t* m_outputBase = nullptr;
  bool m_vectorEpilogue = false;
  SingleRoundChannels m_singleRound;
  std::int64_t m_outPitch = 0;
};

/// Runs rows [0, outH) in `parts` ranges, all but the first on threads of their own. A worker's
/// exception (e.g. bad_alloc) is carried back and rethrown once all have joined; a thread that
/// cannot be started leaves its rows to this thread.
void runInParts(const ConvRows& rows, std::int64_t outH, std::int64_t parts) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  const auto runPart = [&](std::int64_t part) {
    try {
      rows.run(outH * part / parts, outH * (part + 1) / parts);
    } catch (...) {
      errors[static_cast<std::size_t>(part)] = std::current_exception();
    }
  };
  std::vector<std::int64_t> leftover{0};
  {
    std::vector<std::jthread> workers;
    workers.reserve(static_cast<std::size_t>(parts - 1));
    for (std::int64_t part = 1; part < parts; ++part) {
      try {
        workers.emplace_back(runPart, part);
      } catch (const std::system_error&) {
        leftover.push_back(part);
      }
    }
    for (const std::int64_t part : leftover) {
      runPart(part);
    }
  }  // joins the workers
  for (const std::exception_ptr& error : errors) {
    if (error) {
      std::rethrow_exception(error);
    }
  }
}

}  // namespace

void executeConv(const isa::Conv& conv, SramState& sram, unsigned threads) {
  const ConvRows rows(conv, sram);
  runInParts(rows, conv.out_h, convDatapathParts(conv, threads));
}

}  // namespace npu::sim
