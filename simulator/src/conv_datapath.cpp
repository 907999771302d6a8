// CONV on the MAC array: window multiply-accumulate, then the post-processing pipeline (bias,
// requant, zero point, clip, LUT). Each output pixel's window is gathered into a contiguous int16
// patch (zero point already subtracted) and dotted with every output channel's weight row, so the
// inner loop is one vectorisable int16 dot product.
#include <algorithm>
#include <exception>
#include <limits>
#include <system_error>
#include <thread>
#include <vector>

#include "datapath_ops.h"
#include "npu/simulator/datapath.h"
#include "npu/simulator/int16_kernels.h"
#include "npu/simulator/int8_kernels.h"
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

// requantSingleRound is compiled for AVX-512, AVX2 and baseline x86-64, picked at run time; the
// same integer arithmetic in each.
#if defined(__x86_64__)
#define NPU_SIM_REQUANT_CLONES [[gnu::target_clones("arch=x86-64-v4", "avx2", "default")]]
#else
#define NPU_SIM_REQUANT_CLONES
#endif

/// The single-rounding requant of docs/numerics.md (requantSingle) for an output row without a
/// LUT, per channel t = 31 - shift precomputed, written branch-free so GCC
/// vectorises it (64-bit products, per-lane shifts) in each clone.
struct SingleRoundChannels {
  std::vector<std::int32_t> multiplier;  // int32: the product is one vpmuldq per lane
  std::vector<std::int64_t> rounding;    // 2^(t-1)
  std::vector<std::int64_t> shift;       // t
};

/// The channels' constants repeated for `pixels` pixels, so one call covers an output row.
SingleRoundChannels singleRoundChannels(const std::vector<ChannelParams>& params,
                                        std::int64_t pixels) {
  SingleRoundChannels channels;
  for (std::int64_t p = 0; p < pixels; ++p) {
    for (const ChannelParams& c : params) {
      const int t = 31 - clampShift(c.shift);
      channels.multiplier.push_back(c.multiplier);
      channels.rounding.push_back(std::int64_t{1} << (t - 1));
      channels.shift.push_back(t);
    }
  }
  return channels;
}

NPU_SIM_REQUANT_CLONES void requantSingleRound(const std::int32_t* acc,
                                               const SingleRoundChannels& channels,
                                               std::int64_t count, const Epilogue& epilogue,
                                               std::int8_t* out) {
  const std::int32_t* multiplier = channels.multiplier.data();
  const std::int64_t* rounding = channels.rounding.data();
  const std::int64_t* shift = channels.shift.data();
  const std::int64_t outZp = epilogue.outZp;
  const std::int64_t lo = epilogue.clipLo;
  const std::int64_t hi = epilogue.clipHi;
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t v = (static_cast<std::int64_t>(acc[i]) * multiplier[i] + rounding[i]) >> shift[i];
    v = std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                 std::numeric_limits<std::int32_t>::max()) +
        outZp;
    out[i] = static_cast<std::int8_t>(std::clamp(v, lo, hi));
  }
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
  // input is copied below (unsigned or widened) before any output is written, so the two never
  // alias mid-instruction.
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

  // Dense convs on a CPU with VNNI: u8 x s8 dot products of the weights as stored,
  // [out_c][kh][kw][in_c], with each pixel's window gathered in the same order, the activations
  // offset by +128 and the offset's share, (128 + in_zp) * sum(w), taken off per channel.
  const Int8DotKernels& int8 = int8DotKernels();
  const bool useInt8 = !depthwise && int8.isa != "portable";
  std::vector<std::uint8_t> inputU8;
  std::vector<std::int32_t> offsetShare;
  // Otherwise int16: the input with the zero point subtracted (x - zp is in [-255, 255], products
  // fit int16 x int16 -> int32 exactly) and the weights widened.
  std::vector<std::int16_t> input;
  std::vector<std::int16_t> wide;
  // A depthwise conv of column stride 1 runs a whole output row per tap: the row's inputs are one
  // contiguous run, multiplied by the tap's weights repeated once per output column.
  const bool depthwiseRows = depthwise && conv.sw == 1 && inC == outC;
  if (useInt8) {
    inputU8.resize(inputSize);
    for (std::size_t i = 0; i < inputSize; ++i) {
      inputU8[i] = static_cast<std::uint8_t>(static_cast<std::uint8_t>(inputBytes[i]) ^ 0x80U);
    }
    offsetShare.resize(static_cast<std::size_t>(outC));
    const auto offset = static_cast<std::uint32_t>(128 + conv.in_zp);
    for (std::int64_t oc = 0; oc < outC; ++oc) {
      std::uint32_t sum = 0;
      for (std::int64_t k = 0; k < patchLength; ++k) {
        sum +=
            static_cast<std::uint32_t>(static_cast<std::int32_t>(weightRows[oc * patchLength + k]));
      }
      offsetShare[static_cast<std::size_t>(oc)] = static_cast<std::int32_t>(offset * sum);
    }
  } else {
    input.resize(inputSize);
    for (std::size_t i = 0; i < inputSize; ++i) {
      input[i] = static_cast<std::int16_t>(inputBytes[i] - conv.in_zp);
    }
    if (depthwiseRows) {
      // [tap][out column][channel].
      wide.resize(static_cast<std::size_t>(taps * outW * outC));
      for (std::int64_t t = 0; t < taps; ++t) {
        for (std::int64_t ox = 0; ox < outW; ++ox) {
          for (std::int64_t c = 0; c < outC; ++c) {
            wide[static_cast<std::size_t>((t * outW + ox) * outC + c)] = weight[c * taps + t];
          }
        }
      }
    } else if (depthwise) {
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
  // The accumulators of output row oy before this instruction's MACs: the bias or what an
  // earlier instruction left.
  const auto initialRow = [&](std::int64_t oy, std::vector<std::int32_t>& acc) {
    for (std::int64_t ox = 0; ox < outW; ++ox) {
      const std::int64_t pixel = (oy * outW + ox) * outC;
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        acc[static_cast<std::size_t>(ox * outC + oc)] =
            conv.acc_init != 0
                ? params[static_cast<std::size_t>(oc)].bias
                : sram.accumulator[static_cast<std::size_t>(conv.acc_addr + pixel + oc)];
      }
    }
  };
  // Writes output row oy: requantized bytes (finalize) or the accumulators themselves.
  const Epilogue epilogue = epilogueOf(conv, sram);
  std::int8_t* const outputBase = destination.data() + conv.out_addr;
  const bool vectorEpilogue = !epilogue.doubleRound && epilogue.lut == nullptr;
  const SingleRoundChannels singleRound =
      vectorEpilogue ? singleRoundChannels(params, outW) : SingleRoundChannels{};
  const auto finishRow = [&](std::int64_t oy, const std::vector<std::int32_t>& acc) {
    const std::int64_t row = oy * outW * outC;
    if (conv.finalize != 0 && vectorEpilogue) {
      requantSingleRound(acc.data(), singleRound, outW * outC, epilogue, outputBase + row);
      return;
    }
    for (std::int64_t ox = 0; ox < outW; ++ox) {
      const std::int32_t* pixelAcc = acc.data() + ox * outC;
      const std::int64_t pixel = row + ox * outC;
      if (conv.finalize == 0) {
        std::copy(pixelAcc, pixelAcc + outC,
                  sram.accumulator.begin() + static_cast<std::ptrdiff_t>(conv.acc_addr + pixel));
        continue;
      }
      std::int8_t* out = outputBase + pixel;
      for (std::int64_t oc = 0; oc < outC; ++oc) {
        out[oc] = postProcess(epilogue, pixelAcc[oc], params[static_cast<std::size_t>(oc)]);
      }
    }
  };

  // Output rows [rowBegin, rowEnd): every pixel reads the shared input and weights and writes
  // only its own output or accumulator entries, so row ranges can run on separate threads.
  const auto runRows = [&](std::int64_t rowBegin, std::int64_t rowEnd) {
    std::vector<std::int32_t> acc(static_cast<std::size_t>(outW * outC));
    std::vector<std::int16_t> patch(useInt8 || depthwise ? 0
                                                         : static_cast<std::size_t>(patchLength));
    std::vector<std::uint8_t> patches(useInt8 ? static_cast<std::size_t>(outW * patchLength) : 0);
    std::vector<std::int32_t> dots(useInt8 ? static_cast<std::size_t>(outW * outC) : 0);
    for (std::int64_t oy = rowBegin; oy < rowEnd; ++oy) {
      initialRow(oy, acc);
      if (useInt8) {
        std::uint8_t* out = patches.data();
        for (std::int64_t ox = 0; ox < outW; ++ox) {
          for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
            for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
              const std::int64_t iy = oy * conv.sh + ky * conv.dh;
              const std::int64_t ix = ox * conv.sw + kx * conv.dw;
              const std::uint8_t* x = inputU8.data() + (iy * conv.in_w + ix) * inC;
              std::copy(x, x + inC, out);
              out += inC;
            }
          }
        }
        int8.dotBlock(patches.data(), outW, weightRows, outC, patchLength, dots.data());
        for (std::int64_t ox = 0; ox < outW; ++ox) {
          for (std::int64_t oc = 0; oc < outC; ++oc) {
            const auto lane = static_cast<std::size_t>(ox * outC + oc);
            acc[lane] = static_cast<std::int32_t>(
                static_cast<std::uint32_t>(acc[lane]) + static_cast<std::uint32_t>(dots[lane]) -
                static_cast<std::uint32_t>(offsetShare[static_cast<std::size_t>(oc)]));
          }
        }
      } else if (depthwiseRows) {
        for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
          const std::int64_t iy = oy * conv.sh + ky * conv.dh;
          for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
            kernels.multiplyAccumulate(
                acc.data(), input.data() + (iy * conv.in_w + kx * conv.dw) * inC,
                wide.data() + (ky * conv.kw + kx) * outW * outC, outW * outC);
          }
        }
      } else {
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
      finishRow(oy, acc);
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
