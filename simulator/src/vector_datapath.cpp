// The vector unit's kernels: ELTWISE (add, sub, mul, LUT) and POOL (max, average).
#include <algorithm>
#include <limits>

#include "datapath_ops.h"
#include "requant.h"

namespace npu::sim {

void executeEltwise(const isa::Eltwise& e, SramState& sram) {
  const bool doubleRound = e.double_round != 0;
  const std::int8_t* a = sram.input.data() + e.a_addr;
  const std::int8_t* b = sram.input.data() + e.b_addr;
  // out_buf: the result stays in the input SRAM for a cascade's next CONV (never overlapping
  // a or b).
  std::int8_t* out = (e.out_buf != 0 ? sram.input.data() : sram.output.data()) + e.out_addr;
  if (e.op == isa::kEltwiseLut) {
    for (std::int64_t i = 0; i < e.count; ++i) {
      out[i] = lookup(sram.parameter, e.lut_addr, a[i]);
    }
    return;
  }
  const std::int32_t aMult = readParam(sram.parameter, e.param_addr + 0);
  const std::int32_t aShift = readParam(sram.parameter, e.param_addr + 4);
  const std::int32_t bMult = readParam(sram.parameter, e.param_addr + 8);
  const std::int32_t bShift = readParam(sram.parameter, e.param_addr + 12);
  const std::int32_t outMult = readParam(sram.parameter, e.param_addr + 16);
  const std::int32_t outShift = readParam(sram.parameter, e.param_addr + 20);
  for (std::int64_t i = 0; i < e.count; ++i) {
    const std::int32_t da = a[i] - static_cast<std::int32_t>(e.a_zp);
    const std::int32_t db = b[i] - static_cast<std::int32_t>(e.b_zp);
    std::int32_t scaled = 0;
    if (e.op == isa::kEltwiseAdd || e.op == isa::kEltwiseSub) {
      const std::int32_t sa = requant(da * (1 << e.left_shift), aMult, aShift, doubleRound);
      const std::int32_t sb = requant(db * (1 << e.left_shift), bMult, bShift, doubleRound);
      const std::int64_t combined = e.op == isa::kEltwiseAdd ? static_cast<std::int64_t>(sa) + sb
                                                             : static_cast<std::int64_t>(sa) - sb;
      scaled = requant(saturateInt32(combined), outMult, outShift, doubleRound);
    } else {
      scaled = requant(da * db, outMult, outShift, doubleRound);
    }
    auto y = static_cast<std::int32_t>(std::clamp<std::int64_t>(
        static_cast<std::int64_t>(scaled) + e.out_zp, e.clip_lo, e.clip_hi));
    if (e.use_lut != 0) {
      y = lookup(sram.parameter, e.lut_addr, y);
    }
    out[i] = static_cast<std::int8_t>(y);
  }
}

void executePool(const isa::Pool& p, SramState& sram) {
  const std::int8_t* in = sram.input.data() + p.in_addr;
  std::int8_t* out = sram.output.data() + p.out_addr;
  const std::int64_t c = p.channels;
  std::vector<std::int32_t> acc(static_cast<std::size_t>(c));
  for (std::int64_t oy = 0; oy < p.out_h; ++oy) {
    for (std::int64_t ox = 0; ox < p.out_w; ++ox) {
      std::fill(acc.begin(), acc.end(),
                p.op == isa::kPoolMax ? std::numeric_limits<std::int32_t>::min() : 0);
      for (std::int64_t ky = 0; ky < p.kh; ++ky) {
        for (std::int64_t kx = 0; kx < p.kw; ++kx) {
          const std::int8_t* x = in + ((oy * p.sh + ky) * p.in_w + (ox * p.sw + kx)) * c;
          if (p.op == isa::kPoolMax) {
            for (std::int64_t ch = 0; ch < c; ++ch) {
              acc[static_cast<std::size_t>(ch)] =
                  std::max<std::int32_t>(acc[static_cast<std::size_t>(ch)], x[ch]);
            }
          } else {
            for (std::int64_t ch = 0; ch < c; ++ch) {
              acc[static_cast<std::size_t>(ch)] += x[ch];
            }
          }
        }
      }
      std::int8_t* o = out + (oy * p.out_w + ox) * c;
      for (std::int64_t ch = 0; ch < c; ++ch) {
        std::int32_t y = acc[static_cast<std::size_t>(ch)];
        if (p.op == isa::kPoolAverage) {
          y = std::clamp(requantSingle(y, static_cast<std::int32_t>(p.avg_mult),
                                       static_cast<int>(p.avg_shift)),
                         -128, 127);
        }
        o[ch] = static_cast<std::int8_t>(y);
      }
    }
  }
}

}  // namespace npu::sim
