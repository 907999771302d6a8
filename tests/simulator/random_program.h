// Random, hazard-free programs of conv, eltwise and pool tiles with random shapes and
// quantization parameters. Each tile is LOADs -> compute -> STORE; tokens let the load of tile
// k+1 overlap the store of tile k, as double-buffered compiled code does. A split conv tile runs
// its input channels in 2-4 passes through the accumulator SRAM, each pass with its own strided
// loads. The tile descriptions are kept so tests can compute the expected DDR independently.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <variant>
#include <vector>

#include "npu/isa/program.h"

namespace npu::sim::testing {

/// One tile's operands in DDR and the instruction computing it.
struct TileCase {
  isa::Instruction compute;
  std::uint64_t inputAddress = 0;   // a (and b right after a for eltwise)
  std::uint64_t weightAddress = 0;  // CONV only
  std::uint64_t paramAddress = 0;   // params, then (when used) the LUT at +paramBytes
  std::uint64_t paramBytes = 0;
  std::uint64_t outputAddress = 0;
  std::uint64_t inputBytes = 0;
  std::uint64_t weightBytes = 0;
  std::uint64_t outputBytes = 0;
  // Load framing (CONV and POOL): rows/cols read from DDR and padding.
  std::int64_t inRows = 0, inCols = 0, padTop = 0, padBottom = 0, padLeft = 0, padRight = 0;
  std::int64_t channels = 0;
  /// CONV only: input-channel block sizes of a split conv (empty: one pass). `compute` holds the
  /// whole layer (all input channels); build() derives one CONV per block from it.
  std::vector<std::int64_t> channelBlocks;
};

/// What addNorm draws beyond its defaults (the defaults draw exactly what addNorm always drew,
/// so seeds keep their programs).
struct NormOptions {
  std::int64_t maxLength = 300;
  /// LayerNorm's epsilon term: false, 0..2^20; true, 0..2^e - 1 with e drawn from 20..62 (a
  /// large term keeps |t| small, where the rounding of t reaches the output).
  bool wideEpsilon = false;
  /// LayerNorm's record shifts.
  std::int32_t shiftLo = -20;
  std::int32_t shiftHi = -12;
};

class RandomProgramBuilder {
 public:
  RandomProgramBuilder(const isa::NpuConfig& config, std::uint64_t seed)
      : m_rng(seed), m_config(config) {
    m_program.config = config;
    m_program.codeAddress = 0;
    m_next = 0x10000;
  }

  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(m_rng);
  }

  std::vector<std::uint8_t> randomBytes(std::size_t n) {
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) {
      b = static_cast<std::uint8_t>(pick(0, 255));
    }
    return bytes;
  }

  std::uint64_t place(std::vector<std::uint8_t> bytes) {
    const std::uint64_t address = m_next;
    m_next += (bytes.size() + 63) / 64 * 64 + 64;
    m_program.segments.push_back({address, std::move(bytes)});
    return address;
  }

  std::uint64_t reserve(std::size_t n) {
    const std::uint64_t address = m_next;
    m_next += (n + 63) / 64 * 64 + 64;
    return address;
  }

  static void putInt32(std::vector<std::uint8_t>& bytes, std::size_t at, std::int32_t v) {
    std::memcpy(bytes.data() + at, &v, 4);
  }

  /// A random multiplier in [2^30, 2^31) with a shift that keeps outputs in a useful range.
  std::pair<std::int32_t, std::int32_t> randomScale(std::int32_t shiftLo, std::int32_t shiftHi) {
    return {static_cast<std::int32_t>(pick(1 << 30, 0x7FFFFFFF)),
            static_cast<std::int32_t>(pick(shiftLo, shiftHi))};
  }

  void addConv() { addConvTile(1); }

  /// A dense conv whose input channels are split into 2-4 blocks, accumulated through the
  /// accumulator SRAM: the first pass acc_init=1 finalize=0, the middle ones acc_init=0
  /// finalize=0, the last acc_init=0 finalize=1 (docs/isa.md, CONV). Its expected output is the
  /// unsplit conv over all input channels.
  void addSplitConv() { addConvTile(pick(2, 4)); }

  /// A random conv tile computed in `passes` input-channel passes (1: one CONV with acc_init=1
  /// finalize=1, drawing exactly the random numbers addConv always drew, so seeds keep their
  /// programs).
  void addConvTile(std::int64_t passes) {
    TileCase t;
    isa::Conv c;
    c.kh = pick(1, 5);
    c.kw = pick(1, 5);
    c.sh = pick(1, 3);
    c.sw = pick(1, 3);
    c.dh = pick(1, 2);
    c.dw = pick(1, 2);
    c.depthwise = pick(0, 3) == 0 && passes == 1 ? 1 : 0;
    c.in_c = pick(passes, 40);
    c.out_c = c.depthwise != 0 ? c.in_c : pick(1, 40);
    c.out_h = pick(1, 6);
    c.out_w = pick(1, 6);
    const std::int64_t needH = (c.out_h - 1) * c.sh + (c.kh - 1) * c.dh + 1;
    const std::int64_t needW = (c.out_w - 1) * c.sw + (c.kw - 1) * c.dw + 1;
    t.padTop = pick(0, std::min<std::int64_t>(2, needH - 1));
    t.padBottom = pick(0, std::min<std::int64_t>(2, needH - 1 - t.padTop));
    t.padLeft = pick(0, std::min<std::int64_t>(2, needW - 1));
    t.padRight = pick(0, std::min<std::int64_t>(2, needW - 1 - t.padLeft));
    t.inRows = needH - t.padTop - t.padBottom;
    t.inCols = needW - t.padLeft - t.padRight;
    t.channels = c.in_c;
    c.in_w = needW;
    c.in_zp = pick(-128, 127);
    c.out_zp = pick(-128, 127);
    c.clip_lo = pick(-128, 0);
    c.clip_hi = pick(0, 127);
    c.acc_init = 1;
    c.finalize = 1;
    c.use_lut = pick(0, 3) == 0 ? 1 : 0;
    c.double_round = pick(0, 1);
    t.inputBytes = static_cast<std::uint64_t>(t.inRows * t.inCols * c.in_c);
    t.weightBytes =
        static_cast<std::uint64_t>(c.out_c * c.kh * c.kw * (c.depthwise != 0 ? 1 : c.in_c));
    t.inputAddress = place(randomBytes(t.inputBytes));
    std::vector<std::uint8_t> weights = randomBytes(t.weightBytes);
    for (auto& w : weights) {
      if (w == 0x80) {
        w = 0x81;  // weights stay in [-127, 127]
      }
    }
    t.weightAddress = place(std::move(weights));
    t.paramBytes = static_cast<std::uint64_t>(12 * c.out_c);
    std::vector<std::uint8_t> params(t.paramBytes + 256);
    for (std::int64_t oc = 0; oc < c.out_c; ++oc) {
      const auto [m, s] = randomScale(-14, -4);
      putInt32(params, static_cast<std::size_t>(12 * oc),
               static_cast<std::int32_t>(pick(-5000, 5000)));
      putInt32(params, static_cast<std::size_t>(12 * oc + 4), m);
      putInt32(params, static_cast<std::size_t>(12 * oc + 8), s);
    }
    for (std::size_t i = 0; i < 256; ++i) {
      params[t.paramBytes + i] = static_cast<std::uint8_t>(pick(0, 255));
    }
    t.paramAddress = place(std::move(params));
    t.outputBytes = static_cast<std::uint64_t>(c.out_h * c.out_w * c.out_c);
    t.outputAddress = reserve(t.outputBytes);
    c.lut_addr = static_cast<std::int64_t>(t.paramBytes);
    c.wgt_addr = 0;
    c.inp_addr = 0;
    c.param_addr = 0;
    c.out_addr = 0;
    if (passes > 1) {
      // passes - 1 distinct cut points in [1, in_c - 1] give blocks of at least one channel.
      std::vector<std::int64_t> cuts;
      while (static_cast<std::int64_t>(cuts.size()) < passes - 1) {
        const std::int64_t cut = pick(1, c.in_c - 1);
        if (std::find(cuts.begin(), cuts.end(), cut) == cuts.end()) {
          cuts.push_back(cut);
        }
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.push_back(c.in_c);
      std::int64_t begin = 0;
      for (const std::int64_t cut : cuts) {
        t.channelBlocks.push_back(cut - begin);
        begin = cut;
      }
      c.acc_addr = pick(0, 1024);  // partial sums away from entry 0
    }
    t.compute = c;
    m_tiles.push_back(t);
  }

  void addEltwise() {
    TileCase t;
    isa::Eltwise e;
    e.op = pick(0, isa::fieldMax<&isa::Eltwise::op>());
    e.count = pick(1, 300);
    e.a_zp = pick(-128, 127);
    e.b_zp = pick(-128, 127);
    e.out_zp = pick(-128, 127);
    e.clip_lo = pick(-128, 0);
    e.clip_hi = pick(0, 127);
    e.left_shift = e.op == isa::kEltwiseAdd || e.op == isa::kEltwiseSub ? 20 : 0;
    e.use_lut = e.op != isa::kEltwiseLut && pick(0, 3) == 0 ? 1 : 0;
    e.double_round = pick(0, 1);
    t.inputBytes = static_cast<std::uint64_t>(2 * e.count);
    t.inputAddress = place(randomBytes(t.inputBytes));
    t.paramBytes = 24;
    std::vector<std::uint8_t> params(24 + 256);
    for (int k = 0; k < 3; ++k) {
      const auto [m, s] = e.left_shift != 0 ? randomScale(-22, -18) : randomScale(-8, -1);
      putInt32(params, static_cast<std::size_t>(8 * k), m);
      putInt32(params, static_cast<std::size_t>(8 * k + 4), s);
    }
    if (e.left_shift != 0) {  // the output rescale of an add or sub undoes the 2^20
      const auto [m, s] = randomScale(-2, 0);
      putInt32(params, 16, m);
      putInt32(params, 20, s);
    }
    for (std::size_t i = 0; i < 256; ++i) {
      params[24 + i] = static_cast<std::uint8_t>(pick(0, 255));
    }
    t.paramAddress = place(std::move(params));
    t.outputBytes = static_cast<std::uint64_t>(e.count);
    t.outputAddress = reserve(t.outputBytes);
    e.a_addr = 0;
    e.b_addr = e.count;
    e.lut_addr = 24;
    t.compute = e;
    m_tiles.push_back(t);
  }

  void addPool() {
    TileCase t;
    isa::Pool p;
    p.op = pick(0, 1);
    p.kh = pick(1, 4);
    p.kw = pick(1, 4);
    p.sh = pick(1, 3);
    p.sw = pick(1, 3);
    p.channels = pick(1, 40);
    p.out_h = pick(1, 6);
    p.out_w = pick(1, 6);
    const std::int64_t needH = (p.out_h - 1) * p.sh + p.kh;
    const std::int64_t needW = (p.out_w - 1) * p.sw + p.kw;
    t.padTop = pick(0, std::min<std::int64_t>(1, needH - 1));
    t.padLeft = pick(0, std::min<std::int64_t>(1, needW - 1));
    t.inRows = needH - t.padTop;
    t.inCols = needW - t.padLeft;
    t.channels = p.channels;
    p.in_w = needW;
    // Average: Q31 reciprocal of the window size.
    const double reciprocal = 1.0 / static_cast<double>(p.kh * p.kw);
    int exponent = 0;
    const double mantissa = std::frexp(reciprocal, &exponent);
    std::int64_t q = std::llround(mantissa * 2147483648.0);
    if (q == 2147483648LL) {
      q /= 2;
      ++exponent;
    }
    p.avg_mult = p.op == 1 ? q : 0;
    p.avg_shift = p.op == 1 ? exponent : 0;
    t.inputBytes = static_cast<std::uint64_t>(t.inRows * t.inCols * p.channels);
    t.inputAddress = place(randomBytes(t.inputBytes));
    t.outputBytes = static_cast<std::uint64_t>(p.out_h * p.out_w * p.channels);
    t.outputAddress = reserve(t.outputBytes);
    t.compute = p;
    m_tiles.push_back(t);
  }

  /// A NORM tile: softmax (an exp table of a random input scale, or random 16-bit entries),
  /// LayerNorm or RMSNorm (random epsilon term and per-position records) over 1-6 rows of 1-300
  /// values.
  void addNorm(const NormOptions& options = {}) {
    TileCase t;
    isa::Norm n;
    n.op = pick(isa::kNormSoftmax, isa::kNormRmsNorm);
    n.rows = pick(1, 6);
    n.length = pick(1, options.maxLength);
    n.in_zp = pick(-128, 127);
    n.out_zp = n.op == 0 ? -128 : pick(-20, 20);
    n.clip_lo = pick(-128, -100);
    n.clip_hi = pick(100, 127);
    t.inputBytes = static_cast<std::uint64_t>(n.rows * n.length);
    // Narrow rows sometimes, so softmax sees rows that are not dominated by one value.
    std::vector<std::uint8_t> input = randomBytes(t.inputBytes);
    if (pick(0, 1) == 0) {
      const std::int64_t centre = pick(-100, 100);
      const std::int64_t spread = pick(0, 20);
      for (auto& b : input) {
        b = static_cast<std::uint8_t>(static_cast<std::int8_t>(centre + pick(-spread, spread)));
      }
    }
    t.inputAddress = place(std::move(input));
    std::vector<std::uint8_t> params;
    if (n.op == 0) {
      params.resize(512);
      const bool randomTable = pick(0, 4) == 0;
      const double scale =
          std::ldexp(1.0, static_cast<int>(pick(-8, 0))) * (0.5 + pick(0, 99) / 100.0);
      for (std::size_t k = 0; k < 256; ++k) {
        const auto entry = randomTable ? static_cast<std::uint16_t>(pick(0, 65535))
                                       : static_cast<std::uint16_t>(std::lround(
                                             32768.0 * std::exp(-static_cast<double>(k) * scale)));
        params[2 * k] = static_cast<std::uint8_t>(entry & 0xFF);
        params[2 * k + 1] = static_cast<std::uint8_t>(entry >> 8);
      }
    } else {
      n.one_record = pick(0, 3) == 0 ? 1 : 0;
      const std::int64_t records = n.one_record != 0 ? 1 : n.length;
      params.resize(static_cast<std::size_t>(8 + 12 * records));
      auto epsilon = static_cast<std::uint64_t>(
          options.wideEpsilon ? pick(0, (std::int64_t{1} << pick(20, 62)) - 1) : pick(0, 1 << 20));
      if (options.wideEpsilon && pick(0, 3) == 0) {
        // Bits 62 and 63, which NORM ignores (they would overflow V + E).
        epsilon |= static_cast<std::uint64_t>(pick(1, 3)) << 62;
      }
      std::memcpy(params.data(), &epsilon, 8);
      for (std::int64_t j = 0; j < records; ++j) {
        const auto [m, s] = randomScale(options.shiftLo, options.shiftHi);
        const auto at = static_cast<std::size_t>(8 + 12 * j);
        putInt32(params, at, pick(0, 3) == 0 ? -m : m);
        putInt32(params, at + 4, s);
        putInt32(params, at + 8, static_cast<std::int32_t>(pick(-40, 40)));
      }
    }
    t.paramBytes = params.size();
    t.paramAddress = place(std::move(params));
    t.outputBytes = t.inputBytes;
    t.outputAddress = reserve(t.outputBytes);
    t.compute = n;
    m_tiles.push_back(t);
  }

  /// A conv, eltwise or pool tile, chosen from the seed.
  void addConvEltwiseOrPool() {
    switch (pick(0, 2)) {
      case 0:
        addConv();
        break;
      case 1:
        addEltwise();
        break;
      default:
        addPool();
        break;
    }
  }

  /// Emits the instruction stream for every tile added so far and returns the program.
  isa::Program build() {
    std::vector<isa::Instruction>& code = m_program.instructions;
    for (std::size_t k = 0; k < m_tiles.size(); ++k) {
      const TileCase& t = m_tiles[k];
      const bool last = k + 1 == m_tiles.size();
      // One step per pass: its loads (the last one hands a token to compute), then its compute
      // instruction, which pops that token.
      std::vector<std::vector<isa::Load>> loads;
      std::vector<isa::Instruction> computes;
      if (!t.channelBlocks.empty()) {
        splitConvSteps(t, loads, computes);
      } else if (const auto* conv = std::get_if<isa::Conv>(&t.compute)) {
        loads.push_back({frameLoad(t, conv->in_zp), flatLoad(1, t.weightAddress, t.weightBytes),
                         flatLoad(2, t.paramAddress, t.paramBytes + 256)});
        computes.push_back(t.compute);
      } else if (std::holds_alternative<isa::Norm>(t.compute)) {
        loads.push_back(
            {flatLoad(0, t.inputAddress, t.inputBytes), flatLoad(2, t.paramAddress, t.paramBytes)});
        computes.push_back(t.compute);
      } else if (std::holds_alternative<isa::Eltwise>(t.compute)) {
        loads.push_back({flatLoad(0, t.inputAddress, t.inputBytes),
                         flatLoad(2, t.paramAddress, t.paramBytes + 256)});
        computes.push_back(t.compute);
      } else {
        loads.push_back({frameLoad(t, std::get<isa::Pool>(t.compute).op == 0 ? -128 : 0)});
        computes.push_back(t.compute);
      }
      if (k > 0) {
        loads.front().front().pop_next = 1;  // the previous compute has released the buffers
      }
      for (std::size_t step = 0; step < computes.size(); ++step) {
        const bool first = step == 0;
        const bool final = step + 1 == computes.size();
        loads[step].back().push_next = 1;
        code.insert(code.end(), loads[step].begin(), loads[step].end());
        isa::Instruction compute = computes[step];
        std::visit(
            [&](auto& typed) {
              if constexpr (requires {
                              typed.pop_prev + typed.pop_next + typed.push_prev + typed.push_next;
                            }) {
                typed.pop_prev = 1;
                typed.pop_next = first && k > 0 ? 1 : 0;  // the previous store has read OUT
                typed.push_prev = final && !last ? 1 : 0;
                typed.push_next = final ? 1 : 0;
              }
            },
            compute);
        code.push_back(compute);
      }
      isa::Store store;
      store.pop_prev = 1;
      store.push_prev = last ? 0 : 1;
      store.ddr_addr = static_cast<std::int64_t>(t.outputAddress);
      store.y_size = 1;
      store.x_size = 1;
      store.c_bytes = static_cast<std::int64_t>(t.outputBytes);
      code.push_back(store);
    }
    code.emplace_back(isa::End{});
    for (std::size_t k = 0; k < m_tiles.size(); ++k) {
      isa::Region out;
      out.name = fmt::format("out{}", k);
      out.kind = isa::RegionKind::Output;
      out.base = m_tiles[k].outputAddress;
      out.size = m_tiles[k].outputBytes;
      m_program.regions.push_back(out);
    }
    return m_program;
  }

  [[nodiscard]] const std::vector<TileCase>& tiles() const { return m_tiles; }

 private:
  static isa::Load flatLoad(std::int64_t buf, std::uint64_t address, std::uint64_t bytes) {
    isa::Load load;
    load.buf = buf;
    load.ddr_addr = static_cast<std::int64_t>(address);
    load.y_size = 1;
    load.x_size = 1;
    load.c_bytes = static_cast<std::int64_t>(bytes);
    return load;
  }

  /// The steps of a split conv: the parameters once, then per channel block [c0, c0 + n) its
  /// input block (rows and columns framed as the whole tile, n bytes of every pixel) and its
  /// weight block (n bytes of every [oc][ky][kx] row), each block at its own SRAM address so the
  /// next pass's loads overlap this pass's CONV.
  static void splitConvSteps(const TileCase& t, std::vector<std::vector<isa::Load>>& loads,
                             std::vector<isa::Instruction>& computes) {
    const auto& whole = std::get<isa::Conv>(t.compute);
    const std::int64_t taps = whole.kh * whole.kw;
    const std::int64_t framedPixels =
        (t.padTop + t.inRows + t.padBottom) * (t.padLeft + t.inCols + t.padRight);
    std::int64_t c0 = 0;
    std::int64_t inputSram = 0;
    std::int64_t weightSram = 0;
    for (std::size_t p = 0; p < t.channelBlocks.size(); ++p) {
      const std::int64_t n = t.channelBlocks[p];
      std::vector<isa::Load> step;
      if (p == 0) {
        step.push_back(flatLoad(2, t.paramAddress, t.paramBytes + 256));
      }
      isa::Load input = frameLoad(t, whole.in_zp);
      input.sram_addr = inputSram;
      input.ddr_addr += c0;
      input.c_bytes = n;
      step.push_back(input);
      isa::Load weights;
      weights.buf = 1;
      weights.sram_addr = weightSram;
      weights.ddr_addr = static_cast<std::int64_t>(t.weightAddress) + c0;
      weights.y_size = whole.out_c;
      weights.x_size = taps;
      weights.c_bytes = n;
      weights.ddr_row_stride = taps * whole.in_c;
      weights.ddr_col_stride = whole.in_c;
      step.push_back(weights);
      loads.push_back(std::move(step));

      isa::Conv pass = whole;
      pass.in_c = n;
      pass.inp_addr = inputSram;
      pass.wgt_addr = weightSram;
      pass.acc_init = p == 0 ? 1 : 0;
      pass.finalize = p + 1 == t.channelBlocks.size() ? 1 : 0;
      computes.push_back(pass);
      c0 += n;
      inputSram += framedPixels * n;
      weightSram += whole.out_c * taps * n;
    }
  }

  static isa::Load frameLoad(const TileCase& t, std::int64_t padValue) {
    isa::Load load;
    load.buf = 0;
    load.pad_value = padValue;
    load.ddr_addr = static_cast<std::int64_t>(t.inputAddress);
    load.y_size = t.inRows;
    load.x_size = t.inCols;
    load.c_bytes = t.channels;
    load.ddr_row_stride = t.inCols * t.channels;
    load.ddr_col_stride = t.channels;
    load.pad_top = t.padTop;
    load.pad_bottom = t.padBottom;
    load.pad_left = t.padLeft;
    load.pad_right = t.padRight;
    return load;
  }

  std::mt19937_64 m_rng;
  isa::NpuConfig m_config;
  isa::Program m_program;
  std::uint64_t m_next;
  std::vector<TileCase> m_tiles;
};

/// `tiles` tiles, each a conv, eltwise or pool tile chosen at random (same seed, same program).
inline isa::Program randomTileProgram(const isa::NpuConfig& config, std::uint64_t seed, int tiles) {
  RandomProgramBuilder builder(config, seed);
  for (int i = 0; i < tiles; ++i) {
    builder.addConvEltwiseOrPool();
  }
  return builder.build();
}

}  // namespace npu::sim::testing
