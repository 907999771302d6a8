// A row-tiled 3x3 convolution program for benchmarks: the input split into horizontal bands that
// fit the SRAMs, each band loaded with its halo, convolved and stored, with tokens so that the
// load of band k+1 overlaps the convolution of band k (double-buffered input).
#pragma once

#include <cstring>
#include <random>

#include "npu/isa/program.h"

namespace npu::bench {

/// Builds `repeat` back-to-back 3x3 stride-1 same-padded convolutions of an HxWxC input to K
/// channels (dense, or depthwise when `depthwise`), banded by `bandRows` output rows.
inline isa::Program tiledConvProgram(const isa::NpuConfig& config, std::int64_t h, std::int64_t w,
                                     std::int64_t c, std::int64_t k, bool depthwise,
                                     std::int64_t bandRows, int repeat = 1) {
  std::mt19937 rng(1);
  auto bytes = [&](std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) {
      b = static_cast<std::uint8_t>(rng() % 255 + 1);
    }
    return v;
  };
  isa::Program program;
  program.config = config;
  const std::uint64_t inputAddr = 0x100000;
  const std::uint64_t weightAddr = inputAddr + static_cast<std::uint64_t>(h * w * c) + 4096;
  const std::int64_t weightBytes = k * 9 * (depthwise ? 1 : c);
  const std::uint64_t paramAddr = weightAddr + static_cast<std::uint64_t>(weightBytes) + 4096;
  const std::uint64_t outputAddr = paramAddr + static_cast<std::uint64_t>(12 * k) + 4096;
  program.segments.push_back({inputAddr, bytes(static_cast<std::size_t>(h * w * c))});
  program.segments.push_back({weightAddr, bytes(static_cast<std::size_t>(weightBytes))});
  std::vector<std::uint8_t> params(static_cast<std::size_t>(12 * k));
  for (std::int64_t oc = 0; oc < k; ++oc) {
    const std::int32_t record[3] = {100, 1518500250, -10};
    std::memcpy(params.data() + 12 * oc, record, 12);
  }
  program.segments.push_back({paramAddr, params});
  auto& code = program.instructions;
  auto flat = [](std::int64_t buf, std::uint64_t addr, std::int64_t n) {
    return isa::Load{.buf = buf,
                     .ddr_addr = static_cast<std::int64_t>(addr),
                     .y_size = 1,
                     .x_size = 1,
                     .c_bytes = n};
  };
  // Weights and parameters once; the compute unit gets a token for them.
  code.push_back(flat(1, weightAddr, weightBytes));
  // No token of their own: the first band's load follows them on the load unit, and its token
  // covers them.
  code.push_back(flat(2, paramAddr, 12 * k));
  const std::int64_t bandInputBytes = (bandRows + 2) * (w + 2) * c;
  const std::int64_t bandOutputBytes = bandRows * w * k;
  std::int64_t band = 0;
  for (int r = 0; r < repeat; ++r) {
    for (std::int64_t y0 = 0; y0 < h; y0 += bandRows, ++band) {
      const std::int64_t rows = std::min(bandRows, h - y0);
      const std::int64_t padTop = y0 == 0 ? 1 : 0;
      const std::int64_t padBottom = y0 + rows == h ? 1 : 0;
      const std::int64_t firstRow = y0 - 1 + padTop;
      const std::int64_t readRows = rows + 2 - padTop - padBottom;
      const std::int64_t slot = band % 2;  // double-buffered input and output
      isa::Load load{.pop_next = band >= 2 ? 1 : 0,
                     .push_next = 1,
                     .buf = 0,
                     .pad_value = 3,
                     .sram_addr = slot * bandInputBytes,
                     .ddr_addr = static_cast<std::int64_t>(inputAddr) + firstRow * w * c,
                     .y_size = readRows,
                     .x_size = w,
                     .c_bytes = c,
                     .ddr_row_stride = w * c,
                     .ddr_col_stride = c,
                     .pad_top = padTop,
                     .pad_bottom = padBottom,
                     .pad_left = 1,
                     .pad_right = 1};
      code.push_back(load);
      isa::Conv conv{.pop_prev = 1,
                     .pop_next = band >= 2 ? 1 : 0,
                     .push_prev = 1,
                     .push_next = 1,
                     .inp_addr = slot * bandInputBytes,
                     .out_addr = slot * bandOutputBytes,
                     .out_h = rows,
                     .out_w = w,
                     .in_w = w + 2,
                     .in_c = c,
                     .out_c = k,
                     .kh = 3,
                     .kw = 3,
                     .sh = 1,
                     .sw = 1,
                     .dh = 1,
                     .dw = 1,
                     .in_zp = 3,
                     .out_zp = -5,
                     .clip_lo = -128,
                     .clip_hi = 127,
                     .depthwise = depthwise ? 1 : 0,
                     .acc_init = 1,
                     .finalize = 1};
      code.push_back(conv);
      isa::Store store{.pop_prev = 1,
                       .push_prev = 1,
                       .sram_addr = slot * bandOutputBytes,
                       .ddr_addr = static_cast<std::int64_t>(outputAddr) + y0 * w * k,
                       .y_size = 1,
                       .x_size = 1,
                       .c_bytes = rows * w * k};
      code.push_back(store);
    }
  }
  code.emplace_back(isa::End{});
  return program;
}

}  // namespace npu::bench
