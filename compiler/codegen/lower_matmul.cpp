// MatMul of two activations lowered onto CONV: per head, a is a 1-row input tile of M pixels of K
// channels and b, LOADed into the weight SRAM from the tensor the program produced, the
// weights of a 1x1 convolution (docs/isa.md "MatMul on the MAC array"): a b laid out [N][K] is
// loaded as the usual [out_c][in_c] weights, one laid out [K][N] as [in_c][out_c] for a CONV with
// wgt_kn = 1, so neither layout needs a transposing LOAD. The requant is per tensor: the
// parameter records {0, M, shift} repeat the same multiplier for every column.
#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "lowering.h"
#include "npu/support/error.h"

namespace npu::compiler {
namespace {

/// Block sizes of one tile: rows of a, columns of the output, a slice of the inner dimension.
struct MatMulTile {
  std::int64_t mb = 1;
  std::int64_t nb = 1;
  std::int64_t kb = 1;
};

/// The largest tile every SRAM half and field holds: the whole inner dimension when it fits
/// (no accumulator round trips), then as many output columns, then as many rows as fit.
MatMulTile chooseTile(const LoweringContext& ctx, const QMatMul& op, const HeadMatMulGeometry& s,
                      std::int64_t lutBytes) {
  const std::int64_t input = ctx.slots.inputBytes();
  const std::int64_t weight = ctx.slots.weightBytes();
  const std::int64_t output = ctx.slots.outputBytes();
  const std::int64_t records = (ctx.slots.parameterBytes() - lutBytes) / 12;
  const std::int64_t extent = kMaxTileDim;
  MatMulTile t;
  t.kb = std::min({s.k, extent, input, weight, isa::limits::kLoadRows});
  const bool split = t.kb < s.k;
  const std::int64_t accumulator = split ? ctx.slots.accumulatorEntries() : output;
  t.nb = std::min(
      {s.n, extent, weight / std::max<std::int64_t>(t.kb, 1), records, output, accumulator});
  t.mb = std::min({s.m, extent, input / std::max<std::int64_t>(t.kb, 1),
                   output / std::max<std::int64_t>(t.nb, 1),
                   accumulator / std::max<std::int64_t>(t.nb, 1)});
  if (t.kb < 1 || t.nb < 1 || t.mb < 1) {
    fail(ErrorKind::Unsupported,
         "layer '{}': SRAM too small for one matmul output (input half {} B, weight half {} B, "
         "output half {} B, parameter half {} B)",
         op.name, input, weight, output, ctx.slots.parameterBytes());
  }
  return t;
}

}  // namespace

void lowerMatMul(LoweringContext& ctx, const QMatMul& op) {
  const auto& p = op.params;
  if (p.zeroPointB != 0) {
    fail(ErrorKind::Unsupported,
         "layer '{}': the NPU's matmul takes a symmetric second operand (zero point 0, got {})",
         op.name, p.zeroPointB);
  }
  const HeadMatMulGeometry s = matMulGeometry(ctx.graph, op);
  const bool kn = !s.bRowsAreN;
  const std::int64_t lutBytes = p.output.lut ? 256 : 0;
  const MatMulTile t = chooseTile(ctx, op, s, lutBytes);

  // Parameter records for the widest column block, then the LUT.
  std::vector<std::uint8_t> parameters;
  for (std::int64_t j = 0; j < t.nb; ++j) {
    appendInt32(parameters, 0);
    appendInt32(parameters, p.multiplier.multiplier);
    appendInt32(parameters, p.multiplier.shift);
  }
  if (p.output.lut) {
    for (const std::int8_t v : *p.output.lut) {
      parameters.push_back(static_cast<std::uint8_t>(v));
    }
  }
  const std::uint64_t parameterAddress = ctx.constants.add(op.name + ".params", parameters);
  bool loadParameters = false;
  const std::int64_t parameterSram = ctx.slots.parameterSlot(op.name, loadParameters);

  const auto aAddress = static_cast<std::int64_t>(ctx.tensors[op.a].address);
  const auto bAddress = static_cast<std::int64_t>(ctx.tensors[op.b].address);
  const auto yAddress = static_cast<std::int64_t>(ctx.tensors[op.output].address);
  const std::int64_t chunks = (s.k + t.kb - 1) / t.kb;
  for (std::int64_t h = 0; h < s.heads; ++h) {
    for (std::int64_t n0 = 0; n0 < s.n; n0 += t.nb) {
      const std::int64_t nb = std::min(t.nb, s.n - n0);
      for (std::int64_t m0 = 0; m0 < s.m; m0 += t.mb) {
        const std::int64_t mb = std::min(t.mb, s.m - m0);
        std::int64_t outputSram = 0;
        for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
          const std::int64_t k0 = chunk * t.kb;
          const std::int64_t kb = std::min(t.kb, s.k - k0);
          std::int64_t inputSram = 0;
          std::int64_t outSram = 0;
          // Named variables, not a structured binding: clang before 16 cannot capture one.
          std::tie(inputSram, outSram) = ctx.slots.nextStep();
          if (chunk == 0) {
            outputSram = outSram;
          }
          // Rows m0.. of a, columns k0..: mb runs of kb bytes, a row stride apart.
          ctx.load(LoadSram::Input, inputSram,
                   {aAddress + s.a.offset + h * s.a.headStride + m0 * s.a.rowStride + k0, mb, 1, kb,
                    s.a.rowStride, 0});
          bool loadWeights = false;
          const std::int64_t weightSram =
              ctx.slots.weightSlot(fmt::format("{}/h{}/n{}/k{}", op.name, h, n0, k0), loadWeights);
          if (loadWeights) {
            // The weight SRAM holds [nb][kb] (NK) or [kb][nb] (KN, read with wgt_kn).
            const std::int64_t bHead = bAddress + s.b.offset + h * s.b.headStride;
            const DdrBlock block =
                kn ? DdrBlock{bHead + k0 * s.b.rowStride + n0, kb, 1, nb, s.b.rowStride, 0}
                   : DdrBlock{bHead + n0 * s.b.rowStride + k0, nb, 1, kb, s.b.rowStride, 0};
            ctx.load(LoadSram::Weight, weightSram, block);
          }
          if (loadParameters) {
            ctx.loadFlat(LoadSram::Parameter, parameterSram, parameterAddress,
                         static_cast<std::int64_t>(parameters.size()));
            loadParameters = false;
          }
          isa::Conv instruction;
          instruction.inp_addr = inputSram;
          instruction.wgt_addr = weightSram;
          instruction.out_addr = outputSram;
          instruction.acc_addr = 0;
          instruction.param_addr = parameterSram;
          instruction.lut_addr = parameterSram + 12 * t.nb;
          instruction.out_h = 1;
          instruction.out_w = mb;
          instruction.in_w = mb;
          instruction.in_c = kb;
          instruction.out_c = nb;
          instruction.kh = 1;
          instruction.kw = 1;
          instruction.sh = 1;
          instruction.sw = 1;
          instruction.dh = 1;
          instruction.dw = 1;
          instruction.in_zp = p.zeroPointA;
          instruction.out_zp = p.output.zeroPoint;
          instruction.clip_lo = p.output.clipLo;
          instruction.clip_hi = p.output.clipHi;
          instruction.acc_init = chunk == 0 ? 1 : 0;
          instruction.finalize = chunk + 1 == chunks ? 1 : 0;
          instruction.use_lut = p.output.lut && instruction.finalize != 0 ? 1 : 0;
          instruction.double_round = p.output.rounding == golden::Rounding::Double ? 1 : 0;
          instruction.wgt_kn = kn ? 1 : 0;
          ctx.emit(instruction);
        }
        ctx.store(outputSram, {yAddress + s.y.offset + h * s.y.headStride + m0 * s.y.rowStride + n0,
                               mb, 1, nb, s.y.rowStride, 0});
      }
    }
  }
}

}  // namespace npu::compiler
