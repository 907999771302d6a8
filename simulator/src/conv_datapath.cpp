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

void executeConv(const isa::Conv& conv, SramState& sram, unsigned threads) {
  const std::int64_t inC = conv.in_c;
  const std::int64_t outC = conv.out_c;
  const std::int64_t outW = conv.out_w;
  const std::int64_t taps = conv.kh * conv.kw;
  const bool depthwise = conv.depthwise != 0;
  const std::int64_t inH = (conv.out_h - 1) * conv.sh + (conv.kh - 1) * conv.dh + 1;
  const std::int8_t* weight = sram.weight.data() + conv.wgt_addr;
  const std::int8_t* inputBytes = sram.input.data() + conv.inp_addr;
  const auto inputSize = static_cast<std::size_t>(inH * conv.in_w * inC);
  // The parameter records are read only by an instruction that uses them (acc_init: the bias;
  // finalize: multiplier and shift), as its footprint declares and checkBounds checks: a middle
  // chunk of an input-channel split may carry any param_addr.
  const std::vector<ChannelParams> params =
      conv.acc_init != 0 || conv.finalize != 0
          ? channelParams(conv, sram)
          : std::vector<ChannelParams>(static_cast<std::size_t>(outC));
  // A cascade's CONV writes its int8 tile into the input SRAM for the next CONV to read; the
  // input is copied below (unsigned, widened, or as it is for a depthwise conv) before any output
  // is written, so the two never alias mid-instruction.
  std::vector<std::int8_t>& destination = conv.out_buf != 0 ? sram.input : sram.output;
  // Dense weights as rows of [kh][kw][in_c], one per output channel. A matmul's operand stored
  // [in_c][out_c] (wgt_kn, 1x1 only) is transposed into that order first.
  const std::int8_t* weightRows = weight;
  std::vector<std::int8_t> transposed;
  if (conv.wgt_kn != 0) {
    transposed.resize(static_cast<std::size_t>(outC * inC));
    for (std::int64_t c = 0; c < outC; ++c) {
      for (std::int64_t i = 0; i < inC; ++i) {
        transposed[static_cast<std::size_t>(c * inC + i)] = weight[i * outC + c];
      }
    }
    weightRows = transposed.data();
  }
  const std::int64_t patchLength = taps * inC;

  // Dense convs on a CPU with VNNI: u8 x s8 products (int8_kernels.h) of the input offset by +128
  // and the packed weights; the offset's share, (128 + in_zp) * sum(w), comes off per channel.
  const Int8DotKernels& int8 = int8DotKernels();
  const bool useInt8 = !depthwise && int8.isa != "portable";
  // Depthwise convs with one filter per channel: int8 inputs times int32 weights
  // (depthwise_kernels.h); in_zp * sum(w) comes off per channel.
  const bool channelwise = depthwise && inC == outC;
  const DepthwiseKernels& depthwiseKernel = depthwiseKernels();
  // Added to every accumulator of a channel besides its MACs (wrapping, as the accumulator).
  std::vector<std::int32_t> channelOffset(static_cast<std::size_t>(outC), 0);
  const auto takeOff = [&](std::int64_t oc, std::uint32_t offset, std::uint32_t weightSum) {
    channelOffset[static_cast<std::size_t>(oc)] =
        static_cast<std::int32_t>(0U - offset * weightSum);
  };
  // The unsigned input keeps each pixel's channels padded to whole 4-byte groups (vpdpbusd's
  // unit); the padding's weights are zero, so its bytes add nothing.
  const std::int64_t groups = (inC + 3) / 4;
  const std::int64_t channelStride = groups * 4;
  std::vector<std::uint8_t> inputU8;
  Int8PackedWeights packed;
  std::vector<std::int64_t> tapOffset(static_cast<std::size_t>(taps));
  const std::int64_t tapStride = useInt8 ? channelStride : inC;
  for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
    for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
      tapOffset[static_cast<std::size_t>(ky * conv.kw + kx)] =
          (ky * conv.dh * conv.in_w + kx * conv.dw) * tapStride;
    }
  }
  // Depthwise: the input as it lies, or a copy when a cascade's output could overwrite it.
  const std::int8_t* depthwiseInput = inputBytes;
  std::vector<std::int8_t> inputCopy;
  std::vector<std::int32_t> depthwiseWeights;  // [tap][channel]
  // Otherwise int16: the input with the zero point subtracted (x - zp is in [-255, 255], products
  // fit int16 x int16 -> int32 exactly) and the weights widened.
  std::vector<std::int16_t> input;
  std::vector<std::int16_t> wide;
  if (useInt8) {
    inputU8 = unsignedInput(inputBytes, inH * conv.in_w, inC, channelStride);
    packed = packInt8Weights(weightRows, outC, taps, inC);
    const auto offset = static_cast<std::uint32_t>(128 + conv.in_zp);
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      std::uint32_t sum = 0;
      for (std::int64_t k = 0; k < patchLength; ++k) {
        sum +=
            static_cast<std::uint32_t>(static_cast<std::int32_t>(weightRows[oc * patchLength + k]));
      }
      takeOff(oc, offset, sum);
    }
  } else if (channelwise) {
    if (conv.out_buf != 0) {
      inputCopy.assign(inputBytes, inputBytes + inputSize);
      depthwiseInput = inputCopy.data();
    }
    depthwiseWeights.resize(static_cast<std::size_t>(taps * outC));
    for (std::int64_t c = 0; c < outC; ++c) {
      std::uint32_t sum = 0;
      for (std::int64_t t = 0; t < taps; ++t) {
        const std::int8_t w = weight[c * taps + t];
        depthwiseWeights[static_cast<std::size_t>(t * outC + c)] = w;
        sum += static_cast<std::uint32_t>(std::int32_t{w});
      }
      takeOff(c, static_cast<std::uint32_t>(conv.in_zp), sum);
    }
  } else {
    input.resize(inputSize);
    for (std::size_t i = 0; i < inputSize; ++i) {
      input[i] = static_cast<std::int16_t>(inputBytes[i] - conv.in_zp);
    }
    if (depthwise) {
      // [tap][channel]: each tap is one contiguous channel loop.
      wide.resize(static_cast<std::size_t>(taps * outC));
      for (std::int64_t c = 0; c < outC; ++c) {
        for (std::int64_t t = 0; t < taps; ++t) {
          wide[static_cast<std::size_t>(t * outC + c)] = weight[c * taps + t];
        }
      }
    } else {
      // Each output channel is one row that a pixel's patch (the window gathered in the same
      // order) is dotted with.
      wide.assign(weightRows, weightRows + outC * patchLength);
    }
  }

  const Int16Kernels& kernels = int16Kernels();
  // The sums of output row oy are kept `stride` apart. The initial value of each (the bias, or
  // what an earlier instruction left, plus the channel's offset) is written (add = false) or
  // added to what the row holds (add = true).
  std::vector<std::int32_t> biasAndOffset(static_cast<std::size_t>(outC));
  for (std::int64_t oc = 0; oc < outC; ++oc) {
    const auto i = static_cast<std::size_t>(oc);
    biasAndOffset[i] = wrappingAdd(params[i].bias, channelOffset[i]);
  }
  const auto initialRow = [&](std::int64_t oy, std::int32_t* acc, std::int64_t stride, bool add) {
    for (std::int64_t ox = 0; ox < outW; ++ox) {
      std::int32_t* sums = acc + ox * stride;
      const std::int32_t* initial = biasAndOffset.data();
      const std::int32_t* offset = channelOffset.data();
      if (conv.acc_init == 0) {
        const std::int32_t* earlier =
            sram.accumulator.data() + conv.acc_addr + (oy * outW + ox) * outC;
        for (std::int64_t oc = 0; oc < outC; ++oc) {
          const std::int32_t value = wrappingAdd(earlier[oc], offset[oc]);
          sums[oc] = add ? wrappingAdd(sums[oc], value) : value;
        }
        continue;
      }
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        sums[oc] = add ? wrappingAdd(sums[oc], initial[oc]) : initial[oc];
      }
    }
  };
  // Writes output row oy: requantized bytes (finalize) or the accumulators themselves.
  const Epilogue epilogue = epilogueOf(conv, sram);
  std::int8_t* const outputBase = destination.data() + conv.out_addr;
  // The requant kernels take single rounding without a LUT and a clip range that is not empty.
  const bool vectorEpilogue =
      !epilogue.doubleRound && epilogue.lut == nullptr && epilogue.clipLo <= epilogue.clipHi;
  const SingleRoundChannels singleRound =
      vectorEpilogue ? singleRoundChannels(params) : SingleRoundChannels{};
  const RequantKernels& requant = requantKernels();
  // The int8 tile's pixel pitch: out_c, or wider with out_gap (other CONVs fill the gaps).
  const std::int64_t outPitch = outC * (1 + conv.out_gap);
  const auto finishRow = [&](std::int64_t oy, const std::int32_t* acc, std::int64_t stride) {
    const std::int64_t row = oy * outW * outC;
    if (conv.finalize != 0 && vectorEpilogue) {
      std::vector<std::int8_t> gathered(outPitch == outC ? 0
                                                         : static_cast<std::size_t>(outW * outC));
      requant.requantRow({.acc = acc,
                          .stride = stride,
                          .pixels = outW,
                          .channels = outC,
                          .multiplier = singleRound.multiplier.data(),
                          .rightShift = singleRound.rightShift.data(),
                          .outZp = epilogue.outZp,
                          .clipLo = epilogue.clipLo,
                          .clipHi = epilogue.clipHi,
                          .out = outPitch == outC ? outputBase + row : gathered.data()});
      for (std::int64_t ox = 0; ox < outW && outPitch != outC; ++ox) {
        std::copy_n(gathered.data() + ox * outC, outC, outputBase + (oy * outW + ox) * outPitch);
      }
      return;
    }
    for (std::int64_t ox = 0; ox < outW; ++ox) {
      const std::int32_t* pixelAcc = acc + ox * stride;
      const std::int64_t pixel = row + ox * outC;
      if (conv.finalize == 0) {
        std::copy(pixelAcc, pixelAcc + outC,
                  sram.accumulator.begin() + static_cast<std::ptrdiff_t>(conv.acc_addr + pixel));
        continue;
      }
      std::int8_t* out = outputBase + (oy * outW + ox) * outPitch;
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        out[oc] = postProcess(epilogue, pixelAcc[oc], params[static_cast<std::size_t>(oc)]);
      }
    }
  };

  // Output rows [rowBegin, rowEnd): every pixel reads the shared input and weights and writes
  // only its own output or accumulator entries, so row ranges can run on separate threads.
  const auto runRows = [&](std::int64_t rowBegin, std::int64_t rowEnd) {
    const std::int64_t stride = useInt8 ? packed.channels : outC;
    std::vector<std::int32_t> acc(static_cast<std::size_t>(outW * stride));
    std::vector<std::int16_t> patch(useInt8 || depthwise ? 0
                                                         : static_cast<std::size_t>(patchLength));
    for (std::int64_t oy = rowBegin; oy < rowEnd; ++oy) {
      if (useInt8) {
        const Int8WindowRow windows{
            .input = inputU8.data() + oy * conv.sh * conv.in_w * channelStride,
            .pixels = outW,
            .pixelStride = conv.sw * channelStride,
            .tapOffset = tapOffset.data(),
            .taps = taps,
            .groups = groups};
        int8.dotRow(windows, packed, acc.data());
        initialRow(oy, acc.data(), stride, true);
      } else if (channelwise) {
        // With acc_init the kernel starts every pixel from bias and offset itself.
        if (conv.acc_init == 0) {
          initialRow(oy, acc.data(), stride, false);
        }
        const DepthwiseRow windows{.input = depthwiseInput + oy * conv.sh * conv.in_w * inC,
                                   .pixels = outW,
                                   .pixelStride = conv.sw * inC,
                                   .tapOffset = tapOffset.data(),
                                   .taps = taps,
                                   .channels = outC,
                                   .initial = conv.acc_init != 0 ? biasAndOffset.data() : nullptr};
        depthwiseKernel.accumulateRow(windows, depthwiseWeights.data(), acc.data());
      } else {
        initialRow(oy, acc.data(), stride, false);
        for (std::int64_t ox = 0; ox < outW; ++ox) {
          std::int32_t* pixelAcc = acc.data() + ox * outC;
          if (depthwise) {
            for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
              for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
                const std::int64_t iy = oy * conv.sh + ky * conv.dh;
                const std::int64_t ix = ox * conv.sw + kx * conv.dw;
                kernels.multiplyAccumulate(pixelAcc, input.data() + (iy * conv.in_w + ix) * inC,
                                           wide.data() + (ky * conv.kw + kx) * outC, outC);
              }
            }
            continue;
          }
          std::int16_t* out = patch.data();
          for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
            for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
              const std::int64_t iy = oy * conv.sh + ky * conv.dh;
              const std::int64_t ix = ox * conv.sw + kx * conv.dw;
              const std::int16_t* x = input.data() + (iy * conv.in_w + ix) * inC;
              std::copy(x, x + inC, out);
              out += inC;
            }
          }
          for (std::int64_t oc = 0; oc < outC; ++oc) {
            // Wrapping int32 addition, as the hardware accumulator.
            pixelAcc[oc] =
                wrappingAdd(pixelAcc[oc],
                            kernels.dot(patch.data(), wide.data() + oc * patchLength, patchLength));
          }
        }
      }
      finishRow(oy, acc.data(), stride);
    }
  };

  const std::int64_t parts = convDatapathParts(conv, threads);
  // A worker's exception (e.g. bad_alloc) is carried back and rethrown once all have joined; a
  // thread that cannot be started leaves its rows to this thread.
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
  const auto runPart = [&](std::int64_t part) {
    try {
      runRows(conv.out_h * part / parts, conv.out_h * (part + 1) / parts);
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

}  // namespace npu::sim
