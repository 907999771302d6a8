// CONV on the MAC array: window multiply-accumulate, then the post-processing pipeline (bias,
// requant, zero point, clip, LUT). Each output pixel's window is gathered into a contiguous int16
// patch (zero point already subtracted) and dotted with every output channel's weight row, so the
// inner loop is one vectorisable int16 dot product.
#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "datapath_ops.h"
#include "npu/simulator/datapath.h"
#include "npu/simulator/int16_kernels.h"
#include "npu/simulator/timing.h"
#include "requant.h"

namespace npu::sim {
namespace {

// Below this many MACs per thread, starting a thread costs more than it saves.
constexpr std::int64_t kMinMacsPerThread = std::int64_t{1} << 21;

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
  const std::int64_t taps = conv.kh * conv.kw;
  const bool depthwise = conv.depthwise != 0;
  const std::int64_t inH = (conv.out_h - 1) * conv.sh + (conv.kh - 1) * conv.dh + 1;
  const std::int8_t* weight = sram.weight.data() + conv.wgt_addr;

  // The input tile with the zero point subtracted, widened to int16 (x - zp is in [-255, 255],
  // products fit int16 x int16 -> int32 exactly).
  const std::int8_t* inputBytes = sram.input.data() + conv.inp_addr;
  std::vector<std::int16_t> input(static_cast<std::size_t>(inH * conv.in_w * inC));
  for (std::size_t i = 0; i < input.size(); ++i) {
    input[i] = static_cast<std::int16_t>(inputBytes[i] - conv.in_zp);
  }

  std::vector<std::int16_t> wide;
  if (depthwise) {
    // Weights transposed to [tap][channel] so each tap is one contiguous channel loop.
    wide.resize(static_cast<std::size_t>(taps * outC));
    for (std::int64_t c = 0; c < outC; ++c) {
      for (std::int64_t t = 0; t < taps; ++t) {
        wide[static_cast<std::size_t>(t * outC + c)] = weight[c * taps + t];
      }
    }
  } else if (conv.wgt_kn != 0) {
    // Weights stored [in_c][out_c] (1x1 only): transposed to one row per output channel.
    wide.resize(static_cast<std::size_t>(outC * inC));
    for (std::int64_t c = 0; c < outC; ++c) {
      for (std::int64_t i = 0; i < inC; ++i) {
        wide[static_cast<std::size_t>(c * inC + i)] = weight[i * outC + c];
      }
    }
  } else {
    // Weights as stored, [out_c][kh][kw][in_c], widened: each output channel is one row that a
    // pixel's patch (the window gathered in the same order) is dotted with.
    wide.assign(weight, weight + outC * taps * inC);
  }
  const std::int64_t patchLength = taps * inC;

  const Int16Kernels& kernels = int16Kernels();
  // Output rows [rowBegin, rowEnd): every pixel reads the shared input and weights and writes
  // only its own output or accumulator entries, so row ranges can run on separate threads.
  const auto runRows = [&](std::int64_t rowBegin, std::int64_t rowEnd) {
    std::vector<std::int32_t> acc(static_cast<std::size_t>(outC));
    std::vector<std::int16_t> patch(depthwise ? 0 : static_cast<std::size_t>(patchLength));
    for (std::int64_t oy = rowBegin; oy < rowEnd; ++oy) {
      for (std::int64_t ox = 0; ox < conv.out_w; ++ox) {
        const std::int64_t pixel = (oy * conv.out_w + ox) * outC;
        for (std::int64_t oc = 0; oc < outC; ++oc) {
          acc[static_cast<std::size_t>(oc)] =
              conv.acc_init != 0
                  ? readParam(sram.parameter, conv.param_addr + 12 * oc)
                  : sram.accumulator[static_cast<std::size_t>(conv.acc_addr + pixel + oc)];
        }
        if (depthwise) {
          for (std::int64_t ky = 0; ky < conv.kh; ++ky) {
            for (std::int64_t kx = 0; kx < conv.kw; ++kx) {
              const std::int64_t iy = oy * conv.sh + ky * conv.dh;
              const std::int64_t ix = ox * conv.sw + kx * conv.dw;
              kernels.multiplyAccumulate(acc.data(), input.data() + (iy * conv.in_w + ix) * inC,
                                         wide.data() + (ky * conv.kw + kx) * outC, outC);
            }
          }
        } else {
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
            acc[static_cast<std::size_t>(oc)] = static_cast<std::int32_t>(
                static_cast<std::uint32_t>(acc[static_cast<std::size_t>(oc)]) +
                static_cast<std::uint32_t>(
                    kernels.dot(patch.data(), wide.data() + oc * patchLength, patchLength)));
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
