// isa::footprint against hand-computed byte sets: what each instruction reads and writes is the
// bounds checker's and the hazard checker's only source of addresses.
#include "npu/isa/footprint.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace npu::isa {
namespace {

using Runs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

Runs runsOf(const Access& access) {
  Runs runs;
  access.forEachRun(
      [&](std::uint64_t first, std::uint64_t length) { runs.emplace_back(first, length); });
  return runs;
}

TEST(Footprint, LoadReadsAStridedDdrBlockAndWritesThePaddedTile) {
  Load load;
  load.buf = 1;  // weight SRAM
  load.sram_addr = 64;
  load.ddr_addr = 1000;
  load.y_size = 2;
  load.x_size = 3;
  load.c_bytes = 4;
  load.ddr_row_stride = 100;
  load.ddr_col_stride = 10;
  load.pad_top = 1;
  load.pad_left = 2;
  const std::vector<Access> a = footprint(load);
  ASSERT_EQ(a.size(), 2U);
  EXPECT_EQ(a[0].space, MemorySpace::Ddr);
  EXPECT_FALSE(a[0].write);
  EXPECT_EQ(runsOf(a[0]), (Runs{{1000, 4}, {1010, 4}, {1020, 4}, {1100, 4}, {1110, 4}, {1120, 4}}));
  EXPECT_EQ(a[0].end(), 1124U);
  // (1 + 2 rows) x (2 + 3 columns) x 4 bytes, padding included, from sram_addr.
  EXPECT_EQ(a[1].space, MemorySpace::Weight);
  EXPECT_TRUE(a[1].write);
  EXPECT_EQ(runsOf(a[1]), (Runs{{64, 60}}));
}

TEST(Footprint, StoreReadsTheOutputTileAndWritesDdr) {
  Store store;
  store.sram_addr = 8;
  store.ddr_addr = 500;
  store.y_size = 2;
  store.x_size = 1;
  store.c_bytes = 16;
  store.ddr_row_stride = 64;
  const std::vector<Access> a = footprint(store);
  ASSERT_EQ(a.size(), 2U);
  EXPECT_EQ(a[0].space, MemorySpace::Output);
  EXPECT_FALSE(a[0].write);
  EXPECT_EQ(runsOf(a[0]), (Runs{{8, 32}}));
  EXPECT_EQ(a[1].space, MemorySpace::Ddr);
  EXPECT_TRUE(a[1].write);
  EXPECT_EQ(runsOf(a[1]), (Runs{{500, 16}, {564, 16}}));
}

TEST(Footprint, ConvChunksReadAndWriteTheAccumulatorUntilTheLastWritesOutput) {
  Conv conv;
  conv.inp_addr = 0;
  conv.wgt_addr = 32;
  conv.out_addr = 128;
  conv.acc_addr = 5;
  conv.param_addr = 16;
  conv.lut_addr = 100;
  conv.out_h = 2;
  conv.out_w = 3;
  conv.in_w = 5;
  conv.in_c = 4;
  conv.out_c = 2;
  conv.kh = conv.kw = 3;
  conv.sh = conv.sw = 1;
  conv.dh = conv.dw = 1;
  // A middle chunk: neither first nor last.
  conv.acc_init = 0;
  conv.finalize = 0;
  std::vector<Access> a = footprint(conv);
  ASSERT_EQ(a.size(), 4U);
  // Input rows (2 - 1) * 1 + 3 = 4 of 5 columns x 4 channels; weights 2 x 3 x 3 x 4.
  EXPECT_EQ(runsOf(a[0]), (Runs{{0, 80}}));
  EXPECT_EQ(a[1].space, MemorySpace::Weight);
  EXPECT_EQ(runsOf(a[1]), (Runs{{32, 72}}));
  // The accumulator in bytes: entry 5, 2 x 3 x 2 entries of 4 bytes, read then written.
  EXPECT_EQ(a[2].space, MemorySpace::Accumulator);
  EXPECT_FALSE(a[2].write);
  EXPECT_EQ(runsOf(a[2]), (Runs{{20, 48}}));
  EXPECT_EQ(a[3].space, MemorySpace::Accumulator);
  EXPECT_TRUE(a[3].write);

  // The only chunk, with a LUT: parameters (12 bytes per output channel) and the table are read,
  // the accumulator is not touched, the output tile is written.
  conv.acc_init = 1;
  conv.finalize = 1;
  conv.use_lut = 1;
  a = footprint(conv);
  ASSERT_EQ(a.size(), 5U);
  EXPECT_EQ(a[2].space, MemorySpace::Parameter);
  EXPECT_EQ(runsOf(a[2]), (Runs{{16, 24}}));
  EXPECT_EQ(runsOf(a[3]), (Runs{{100, 256}}));
  EXPECT_EQ(a[4].space, MemorySpace::Output);
  EXPECT_TRUE(a[4].write);
  EXPECT_EQ(runsOf(a[4]), (Runs{{128, 12}}));

  // Depthwise weights: one per output channel and tap.
  conv.depthwise = 1;
  conv.in_c = 2;
  EXPECT_EQ(runsOf(footprint(conv)[1]), (Runs{{32, 18}}));
}

TEST(Footprint, EltwiseAndLutAndPool) {
  Eltwise add;
  add.op = 0;
  add.a_addr = 0;
  add.b_addr = 40;
  add.out_addr = 8;
  add.param_addr = 48;
  add.count = 40;
  std::vector<Access> a = footprint(add);
  ASSERT_EQ(a.size(), 4U);
  EXPECT_EQ(runsOf(a[1]), (Runs{{40, 40}}));
  EXPECT_EQ(runsOf(a[2]), (Runs{{48, 24}}));  // the requant parameters
  EXPECT_EQ(runsOf(a[3]), (Runs{{8, 40}}));

  Eltwise lut = add;
  lut.op = 2;  // a table lookup reads a and the table only
  lut.lut_addr = 300;
  a = footprint(lut);
  ASSERT_EQ(a.size(), 3U);
  EXPECT_EQ(runsOf(a[1]), (Runs{{300, 256}}));

  Pool pool;
  pool.in_addr = 0;
  pool.out_addr = 4;
  pool.in_w = 6;
  pool.out_h = 2;
  pool.out_w = 3;
  pool.channels = 8;
  pool.kh = pool.kw = 2;
  pool.sh = pool.sw = 2;
  a = footprint(pool);
  ASSERT_EQ(a.size(), 2U);
  EXPECT_EQ(runsOf(a[0]), (Runs{{0, 4 * 6 * 8}}));  // rows (2 - 1) * 2 + 2
  EXPECT_EQ(runsOf(a[1]), (Runs{{4, 48}}));

  EXPECT_TRUE(footprint(Sync{}).empty());
  EXPECT_TRUE(footprint(End{}).empty());
}

}  // namespace
}  // namespace npu::isa
