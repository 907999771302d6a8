// Co-simulation of the RTL against the SystemC timed model: every opcode on small assembled
// programs (examples/asm/smoke.s and tests/data/rtl/*.s), random hazard-free conv, eltwise and
// pool programs, random NORM programs (alone and mixed with the other tiles), and ELTWISEs
// overlapped with CONVs. Each must end with the same whole DDR and the same end cycle for every
// instruction.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "npu/compiler/codegen/codegen.h"
#include "npu/isa/assembly.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/verify.h"
#include "npu/support/error.h"
#include "random_graph.h"
#include "random_program.h"

namespace npu::runtime {
namespace {

const std::filesystem::path kSource = NPU_SOURCE_DIR;

void expectMatch(const isa::Program& program, const std::string& what) {
  const CosimReport report = cosimulate(program);
  EXPECT_TRUE(report.matches()) << what << ":\n" << report.summary(program);
}

class AssembledPrograms : public ::testing::TestWithParam<std::string> {};

TEST_P(AssembledPrograms, MatchSystemC) {
  const std::filesystem::path path = kSource / GetParam();
  expectMatch(isa::assembleFile(path), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Rtl, AssembledPrograms,
                         ::testing::Values("examples/asm/smoke.s", "tests/data/rtl/eltwise.s",
                                           "tests/data/rtl/pool.s", "tests/data/rtl/conv_dw.s",
                                           "tests/data/rtl/conv_split.s", "tests/data/rtl/tokens.s",
                                           "tests/data/rtl/token_full.s", "tests/data/rtl/dma.s",
                                           "tests/data/rtl/ddr_end.s", "tests/data/rtl/norm.s"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

// ELTWISEs with overlap = 1 beside CONVs (tests/data/rtl/overlap.s). Besides matching the SystemC
// model, the RTL's end cycles follow docs/timing.md's start rule, computed here from the
// durations (CONV 3x3: 8*8*9 + 4 = 580; 1x1 4x4: 20; 1x1 1x2: 6; ELTWISE of n: n/16 + 4; POOL:
// 9*4 + 4 = 40; the LOAD of 2048 aligned bytes: 64 + 128): an overlapped ELTWISE starts in the
// cycle its CONV starts (it is the head then, its tokens there) or when its token arrives, every
// other compute instruction when both sides are free.
TEST(RtlOverlap, EltwiseRunsBesideConvs) {
  const isa::Program program = isa::assembleFile(kSource / "tests/data/rtl/overlap.s");
  const CosimReport report = cosimulate(program);
  EXPECT_TRUE(report.matches()) << report.summary(program);
  const std::vector<std::uint64_t>& end = report.rtl.endCycles;
  ASSERT_EQ(end.size(), 27U);
  const std::uint64_t conv1Start = end[6] - 580;
  EXPECT_EQ(end[7], conv1Start + 20);    // ELTWISE beside CONV 6, ends first
  EXPECT_EQ(end[8], end[7] + 4 + 4);     // the next one waits for the vector side only
  EXPECT_EQ(end[9], end[6] + 20);        // CONV reading its result: both sides free
  EXPECT_EQ(end[10], end[9] + 6);        // a short CONV ...
  EXPECT_EQ(end[11], end[9] + 128 + 4);  // ... and the ELTWISE beside it, ending later
  EXPECT_EQ(end[12], end[11] + 40);      // POOL waits for both sides
  EXPECT_EQ(end[13], end[12] + 192);     // LOAD after the POOL's token
  EXPECT_EQ(end[14], end[12] + 580);     // CONV from the POOL's end
  EXPECT_EQ(end[15], end[13] + 64 + 4);  // ELTWISE waits for the LOAD's token, beside it
  EXPECT_EQ(end[16], end[14] + 20);
  EXPECT_EQ(end[17], end[16] + 20);
  EXPECT_EQ(end[18], end[17]);      // ends in the same cycle as CONV 17
  EXPECT_EQ(end[19], end[18] + 1);  // SYNC: both sides free
}

// The second compute start of a cycle in every form: CONV 1 waits for the MAC side (CONV 0, of
// 1 x n pixels) while fetch, held back by a full load queue (33 load SYNCs behind a LOAD), brings
// CONV 1 and the overlapped ELTWISE behind it; with `tokens`, each of them also pops a load token
// (two LOADs after the SYNCs). n sweeps CONV 0's end across the cycles where the ELTWISE arrives
// from fetch into a one-entry queue, where it is the queue's second entry, and (with tokens) where
// the two tokens are there, or the second is pushed in the cycle both start. The data are
// overlap.s's.
isa::Program secondStartProgram(std::int64_t n, bool tokens) {
  isa::Program program = isa::assembleFile(kSource / "tests/data/rtl/overlap.s");
  std::vector<std::string> lines = {
      "LOAD sram_addr=0x8000 ddr_addr=0x12000 y_size=1 x_size=1 c_bytes=4096",
      "LOAD buf=1 sram_addr=0x2000 ddr_addr=0x22000 y_size=1 x_size=1 c_bytes=256",
      "LOAD push_next=1 buf=2 ddr_addr=0x23000 y_size=1 x_size=1 c_bytes=704",
      fmt::format("CONV pop_prev=1 wgt_addr=0x2000 inp_addr=0x8000 param_addr=0x200 out_h=1 "
                  "out_w={} in_w={} in_c=16 out_c=16 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 "
                  "clip_hi=127 acc_init=1 finalize=1",
                  n, n),
      "LOAD sram_addr=0xa000 ddr_addr=0x14000 y_size=1 x_size=1 c_bytes=2048",
  };
  for (int k = 0; k < 33; ++k) {
    lines.emplace_back("SYNC unit=0");
  }
  if (tokens) {
    lines.emplace_back(
        "LOAD push_next=1 sram_addr=0x1000 ddr_addr=0x11000 y_size=1 x_size=1 "
        "c_bytes=256");
    lines.emplace_back(
        "LOAD push_next=1 sram_addr=0x1100 ddr_addr=0x11100 y_size=1 x_size=1 "
        "c_bytes=256");
  }
  const char* pop = tokens ? "pop_prev=1 " : "";
  lines.push_back(fmt::format(
      "CONV {}wgt_addr=0x2000 inp_addr=0x8000 out_addr=0x1000 param_addr=0x200 out_h=1 out_w=8 "
      "in_w=8 in_c=16 out_c=16 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 clip_hi=127 acc_init=1 "
      "finalize=1",
      pop));
  lines.push_back(
      fmt::format("ELTWISE {}a_addr={} b_addr={} out_addr=0x2000 param_addr=0x100 "
                  "count=128 a_zp=3 b_zp=-7 out_zp=5 clip_lo=-128 clip_hi=127 "
                  "left_shift=20 overlap=1",
                  pop, tokens ? "0x1100" : "0x8000", tokens ? "0x1180" : "0x8080"));
  lines.emplace_back("SYNC push_next=1 unit=1");
  lines.push_back(
      fmt::format("STORE pop_prev=1 ddr_addr=0x30000 y_size=1 x_size=1 c_bytes={}", 16 * n));
  lines.emplace_back("STORE sram_addr=0x1000 ddr_addr=0x31000 y_size=1 x_size=1 c_bytes=128");
  lines.emplace_back("STORE sram_addr=0x2000 ddr_addr=0x32000 y_size=1 x_size=1 c_bytes=128");
  lines.emplace_back("END");
  program.instructions.clear();
  for (const std::string& line : lines) {
    program.instructions.push_back(isa::parseInstruction(line, "secondStartProgram"));
  }
  return program;
}

TEST(RtlOverlap, SecondStartInOneCycle) {
  for (const bool tokens : {false, true}) {
    // With a short CONV 0, CONV 1 starts when fetch (and its token) brings it: CONV 0 of n
    // pixels ends n - 1 cycles later than that one, so start the sweep a few cycles earlier.
    const isa::Program probe = secondStartProgram(1, tokens);
    const rtl::RtlResult short0 = rtl::runRtl(probe);
    const std::size_t conv1 = probe.instructions.size() - 7;
    const std::uint64_t conv0Start = short0.endCycles[3] - 5;
    const std::uint64_t conv1Start = short0.endCycles[conv1] - 12;
    ASSERT_GT(conv1Start, conv0Start + 16);
    const auto first = static_cast<std::int64_t>(conv1Start - conv0Start) - 4 - 8;
    int together = 0;
    for (std::int64_t n = first; n < first + (tokens ? 120 : 24); ++n) {
      const isa::Program program = secondStartProgram(n, tokens);
      const CosimReport report = cosimulate(program);
      EXPECT_TRUE(report.matches()) << "n = " << n << (tokens ? " with tokens" : "") << ":\n"
                                    << report.summary(program);
      const auto& end = report.rtl.endCycles;
      together += end[conv1] - 12 == end[conv1 + 1] - 12 ? 1 : 0;
    }
    std::cout << together << " sweeps with CONV 1 and the ELTWISE starting together"
              << (tokens ? " (tokens)" : "") << "\n";
    EXPECT_GT(together, 0);
  }
}

// overlap.s's data with other instructions.
isa::Program overlapDataProgram(const std::vector<std::string>& lines) {
  isa::Program program = isa::assembleFile(kSource / "tests/data/rtl/overlap.s");
  program.instructions.clear();
  for (const std::string& line : lines) {
    program.instructions.push_back(isa::parseInstruction(line, "overlapDataProgram"));
  }
  return program;
}

// The loads every program below starts with: CONV 0's input, weights and parameters (its token
// last), the 1x1 weights at 0x2000 and the ELTWISE's operands at 0x1000.
std::vector<std::string> overlapLoads() {
  return {
      "LOAD ddr_addr=0x10000 y_size=1 x_size=1 c_bytes=1600",
      "LOAD buf=1 ddr_addr=0x20000 y_size=1 x_size=1 c_bytes=2304",
      "LOAD buf=1 sram_addr=0x2000 ddr_addr=0x22000 y_size=1 x_size=1 c_bytes=256",
      "LOAD sram_addr=0x1000 ddr_addr=0x11000 y_size=1 x_size=1 c_bytes=512",
      "LOAD push_next=1 buf=2 ddr_addr=0x23000 y_size=1 x_size=1 c_bytes=704",
  };
}

// CONV 0 (3x3, 580 cycles), CONV 1 (1x1 of 8 pixels, 12 cycles) and the overlapped ELTWISE
// (20 cycles) behind it, which pops `pop` (when its token is there, it starts with CONV 1).
const char* const kConv0 =
    "CONV {}out_h=8 out_w=8 in_w=10 in_c=16 out_c=16 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 in_zp=-3 "
    "out_zp=-20 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1";
const char* const kConv1 =
    "CONV {}wgt_addr=0x2000 out_addr=0x1000 param_addr=0x200 out_h=1 out_w=8 in_w=8 in_c=16 "
    "out_c=16 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1";
const char* const kEltwise =
    "ELTWISE {} a_addr=0x1000 b_addr=0x1100 out_addr=0x2000 param_addr=0x100 count=256 a_zp=3 "
    "b_zp=-7 out_zp=5 clip_lo=-128 clip_hi=127 left_shift=20 overlap=1";

// The second start popping a store token (S2C): STORE A pushes it, and the ELTWISE behind CONV 1
// pops it. Without `late`, STORE A ends long before CONV 0 does, so the ELTWISE starts with
// CONV 1 and takes the token; the compute SYNC behind it then waits for STORE B's token (pushed
// after CONV 1's result is stored), not for the one the ELTWISE took. With `late`, STORE A waits
// for CONV 0's token, so the ELTWISE waits for STORE A beside CONV 1.
isa::Program storeTokenProgram(bool late) {
  std::vector<std::string> lines = overlapLoads();
  lines.push_back(
      fmt::format(fmt::runtime(kConv0), late ? "pop_prev=1 push_next=1 " : "pop_prev=1 "));
  lines.push_back(
      fmt::format("STORE {}push_prev=1 sram_addr=0x3000 ddr_addr=0x33000 y_size=1 "
                  "x_size=1 c_bytes=64",
                  late ? "pop_prev=1 " : ""));
  lines.push_back(fmt::format(fmt::runtime(kConv1), "push_next=1 "));
  lines.push_back(fmt::format(fmt::runtime(kEltwise), "pop_next=1"));
  lines.emplace_back("SYNC pop_next=1 unit=1");
  lines.emplace_back(
      "STORE pop_prev=1 push_prev=1 sram_addr=0x1000 ddr_addr=0x31000 y_size=1 x_size=1 "
      "c_bytes=128");
  lines.emplace_back("SYNC push_next=1 unit=1");
  lines.emplace_back("STORE pop_prev=1 ddr_addr=0x30000 y_size=1 x_size=1 c_bytes=1024");
  lines.emplace_back("STORE sram_addr=0x2000 ddr_addr=0x32000 y_size=1 x_size=1 c_bytes=256");
  lines.emplace_back("END");
  return overlapDataProgram(lines);
}

TEST(RtlOverlap, SecondStartPopsAStoreToken) {
  constexpr std::size_t kStoreA = 6;
  constexpr std::size_t kConv1Index = 7;
  constexpr std::size_t kEltwiseIndex = 8;
  constexpr std::size_t kSync = 9;
  constexpr std::size_t kStoreB = 10;
  for (const bool late : {false, true}) {
    const isa::Program program = storeTokenProgram(late);
    const CosimReport report = cosimulate(program);
    EXPECT_TRUE(report.matches()) << (late ? "late" : "early") << ":\n" << report.summary(program);
    const std::vector<std::uint64_t>& end = report.rtl.endCycles;
    const std::uint64_t conv1Start = end[kConv1Index] - 12;
    const std::uint64_t eltwiseStart = end[kEltwiseIndex] - 20;
    if (late) {
      EXPECT_GT(end[kStoreA], conv1Start);
      EXPECT_EQ(eltwiseStart, end[kStoreA]);  // the token pushed there
    } else {
      EXPECT_LT(end[kStoreA], conv1Start);
      EXPECT_EQ(eltwiseStart, conv1Start);  // the second start, popping STORE A's token
      EXPECT_GT(end[kStoreB], end[kEltwiseIndex]);
      EXPECT_EQ(end[kSync], end[kStoreB] + 1);  // STORE B's token, not STORE A's again
    }
  }
}

// The second start's pop is the one that makes room in a full token queue: 17 LOADs push to
// compute (token_depth 16), the last waiting for room, while CONV 0 and two more 580-cycle CONVs
// run; then CONV 1 (popping nothing) and the overlapped ELTWISE behind it start together, the
// ELTWISE's pop lets the waiting LOAD push in that cycle, and the LOAD behind it starts then.
// Sixteen compute SYNCs take the remaining tokens.
TEST(RtlOverlap, SecondStartsPopMakesRoomForAPush) {
  const isa::NpuConfig& config = rtl::rtlConfig();
  const std::int64_t depth = config.tokenQueueDepth;
  std::vector<std::string> lines = overlapLoads();
  lines.push_back(fmt::format(fmt::runtime(kConv0), "pop_prev=1 "));
  lines.push_back(fmt::format(fmt::runtime(kConv0), ""));
  lines.push_back(fmt::format(fmt::runtime(kConv0), ""));
  const std::size_t conv1 = lines.size();
  lines.push_back(fmt::format(fmt::runtime(kConv1), ""));
  lines.push_back(fmt::format(fmt::runtime(kEltwise), "pop_prev=1"));
  for (std::int64_t k = 0; k <= depth; ++k) {
    lines.push_back(fmt::format(
        "LOAD push_next=1 sram_addr=0x{:x} ddr_addr=0x{:x} y_size=1 x_size=1 c_bytes=64",
        0x9000 + 64 * k, 0x12000 + 64 * k));
  }
  const std::size_t waiting = lines.size() - 1;
  lines.emplace_back("LOAD sram_addr=0xa000 ddr_addr=0x14000 y_size=1 x_size=1 c_bytes=64");
  for (std::int64_t k = 0; k < depth - 1; ++k) {
    lines.emplace_back("SYNC pop_prev=1 unit=1");
  }
  lines.emplace_back("SYNC pop_prev=1 push_next=1 unit=1");
  lines.emplace_back("STORE pop_prev=1 ddr_addr=0x30000 y_size=1 x_size=1 c_bytes=1024");
  lines.emplace_back("STORE sram_addr=0x1000 ddr_addr=0x31000 y_size=1 x_size=1 c_bytes=128");
  lines.emplace_back("STORE sram_addr=0x2000 ddr_addr=0x32000 y_size=1 x_size=1 c_bytes=256");
  lines.emplace_back("END");
  const isa::Program program = overlapDataProgram(lines);
  const CosimReport report = cosimulate(program);
  EXPECT_TRUE(report.matches()) << report.summary(program);
  const std::vector<std::uint64_t>& end = report.rtl.endCycles;
  const std::uint64_t conv1Start = end[conv1] - 12;
  EXPECT_EQ(end[conv1 + 1] - 20, conv1Start);        // the second start
  EXPECT_LT(end[waiting], conv1Start);               // the last pushing LOAD waited for room ...
  EXPECT_EQ(end[waiting + 1], conv1Start + 64 + 4);  // ... until the ELTWISE's pop
}

// A random program of overlapped ELTWISEs among CONVs: one CONV tile (random shape), then 3 to 9
// compute instructions, each a CONV of that tile, an ELTWISE with overlap = 1 (a third of them
// waiting for a load of their own operands), an ELTWISE without overlap or a compute SYNC, every
// result in its own part of the output SRAM and the overlapped ELTWISEs' operands apart from
// everything else, so no pair conflicts; a SYNC then hands all of it to one STORE.
isa::Program randomOverlapProgram(std::uint64_t seed, int& overlapped) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  auto bytes = [&](std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (auto& b : v) {
      b = static_cast<std::uint8_t>(pick(0, 255));
    }
    return v;
  };
  isa::Program program;
  program.config = rtl::rtlConfig();
  std::uint64_t nextDdr = 0x10000;
  auto place = [&](std::vector<std::uint8_t> data) {
    const std::uint64_t at = nextDdr;
    nextDdr += (data.size() + 63) / 64 * 64 + 64;
    program.segments.push_back({at, std::move(data)});
    return at;
  };
  auto load = [](std::int64_t buf, std::uint64_t sram, std::uint64_t ddr, std::size_t n) {
    isa::Load l;
    l.buf = buf;
    l.sram_addr = static_cast<std::int64_t>(sram);
    l.ddr_addr = static_cast<std::int64_t>(ddr);
    l.y_size = 1;
    l.x_size = 1;
    l.c_bytes = static_cast<std::int64_t>(n);
    return l;
  };

  isa::Conv conv;
  conv.kh = pick(1, 3);
  conv.kw = pick(1, 3);
  conv.out_h = pick(1, 6);
  conv.out_w = pick(1, 6);
  conv.in_c = 8 * pick(1, 4);
  conv.out_c = 8 * pick(1, 3);
  conv.in_w = conv.out_w + conv.kw - 1;
  conv.sh = conv.sw = conv.dh = conv.dw = 1;
  conv.in_zp = pick(-128, 127);
  conv.out_zp = pick(-128, 127);
  conv.clip_lo = -128;
  conv.clip_hi = 127;
  conv.acc_init = 1;
  conv.finalize = 1;
  // Output pixels out_c * (1 + out_gap) apart (the gaps are stored too: both models keep them).
  conv.out_gap = static_cast<std::int64_t>(seed % 3);
  const auto inH = static_cast<std::size_t>(conv.out_h + conv.kh - 1);
  const auto inputBytes = inH * static_cast<std::size_t>(conv.in_w * conv.in_c);
  const auto weightBytes = static_cast<std::size_t>(conv.out_c * conv.kh * conv.kw * conv.in_c);
  const auto convOut =
      static_cast<std::size_t>(conv.out_h * conv.out_w * conv.out_c * (1 + conv.out_gap));
  // Parameters: the CONV's records at 0, the ELTWISEs' scales at 0x400, a LUT at 0x500.
  std::vector<std::uint8_t> params = bytes(0x600);
  for (std::int64_t c = 0; c < conv.out_c; ++c) {
    const std::int32_t record[3] = {static_cast<std::int32_t>(pick(-500, 500)),
                                    static_cast<std::int32_t>(pick(1 << 30, 0x7FFFFFFF)),
                                    static_cast<std::int32_t>(pick(-12, -8))};
    std::memcpy(params.data() + 12 * c, record, 12);
  }
  const std::int32_t scales[6] = {0x4ccccccd, -1, 0x73333333, -1, 0x40000000, -16};
  std::memcpy(params.data() + 0x400, scales, sizeof scales);
  std::vector<isa::Instruction> loads = {
      load(0, 0, place(bytes(inputBytes)), inputBytes),
      load(1, 0, place(bytes(weightBytes)), weightBytes),
  };
  std::vector<isa::Instruction> lateLoads;  // after the token of the CONV's operands
  std::vector<isa::Instruction> computes;
  std::uint64_t out = 0;       // next free output SRAM byte
  std::uint64_t inp = 0x8000;  // next free input SRAM byte for ELTWISE operands
  auto addConv = [&](bool first) {
    isa::Conv c = conv;
    c.pop_prev = first ? 1 : 0;
    c.out_addr = static_cast<std::int64_t>(out);
    out += convOut;
    computes.emplace_back(c);
  };
  addConv(true);
  const int count = static_cast<int>(pick(3, 9));
  for (int k = 0; k < count; ++k) {
    const std::int64_t kind = pick(0, 9);
    if (kind < 3) {
      addConv(false);
    } else if (kind < 9) {
      isa::Eltwise e;
      e.op = pick(0, isa::fieldMax<&isa::Eltwise::op>());
      e.count = pick(1, 400);
      e.a_zp = pick(-128, 127);
      e.b_zp = pick(-128, 127);
      e.out_zp = pick(-128, 127);
      e.clip_lo = -128;
      e.clip_hi = 127;
      e.left_shift = e.op == isa::kEltwiseAdd || e.op == isa::kEltwiseSub ? 20 : 0;
      e.use_lut = e.op != isa::kEltwiseLut && pick(0, 3) == 0 ? 1 : 0;
      e.param_addr = 0x400;
      e.lut_addr = 0x500;
      e.overlap = kind < 8 ? 1 : 0;
      overlapped += static_cast<int>(e.overlap);
      const auto n = static_cast<std::size_t>(2 * e.count);
      e.a_addr = static_cast<std::int64_t>(inp);
      e.b_addr = static_cast<std::int64_t>(inp) + e.count;
      isa::Load operands = load(0, inp, place(bytes(n)), n);
      inp += n;
      if (e.overlap != 0 && pick(0, 2) == 0) {
        e.pop_prev = 1;
        operands.push_next = 1;
        lateLoads.emplace_back(operands);
      } else {
        loads.emplace_back(operands);
      }
      e.out_addr = static_cast<std::int64_t>(out);
      out += static_cast<std::uint64_t>(e.count);
      computes.emplace_back(e);
    } else {
      isa::Sync sync;
      sync.unit = 1;
      computes.emplace_back(sync);
    }
  }
  isa::Load paramLoad = load(2, 0, place(std::move(params)), 0x600);
  paramLoad.push_next = 1;
  loads.emplace_back(paramLoad);
  isa::Sync done;
  done.unit = 1;
  done.push_next = 1;
  computes.emplace_back(done);
  isa::Store store;
  store.pop_prev = 1;
  store.ddr_addr = static_cast<std::int64_t>(nextDdr);
  store.y_size = 1;
  store.x_size = 1;
  store.c_bytes = static_cast<std::int64_t>(out);
  isa::Region region;
  region.name = "out";
  region.kind = isa::RegionKind::Output;
  region.base = nextDdr;
  region.size = out;
  program.regions.push_back(region);
  auto& code = program.instructions;
  code.insert(code.end(), loads.begin(), loads.end());
  code.insert(code.end(), lateLoads.begin(), lateLoads.end());
  code.insert(code.end(), computes.begin(), computes.end());
  code.emplace_back(store);
  code.emplace_back(isa::End{});
  return program;
}

// Two shards of 30 random overlap programs; both engines must agree and the RTL must have run
// some overlapped ELTWISE beside a CONV.
class RandomOverlapPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomOverlapPrograms, MatchSystemC) {
  int overlapped = 0;
  int beside = 0;
  for (int k = 0; k < 30; ++k) {
    const auto seed = static_cast<std::uint64_t>(5000 + 30 * GetParam() + k);
    const isa::Program program = randomOverlapProgram(seed, overlapped);
    const CosimReport report = cosimulate(program);
    EXPECT_TRUE(report.matches()) << "random overlap program seed " << seed << ":\n"
                                  << report.summary(program);
    // An overlapped ELTWISE that ends before the CONV in front of it ran beside it.
    const auto& end = report.rtl.endCycles;
    for (std::size_t i = 1; i < program.instructions.size(); ++i) {
      const auto* e = std::get_if<isa::Eltwise>(&program.instructions[i]);
      if (e != nullptr && e->overlap != 0 &&
          std::holds_alternative<isa::Conv>(program.instructions[i - 1]) && end[i] < end[i - 1]) {
        ++beside;
      }
    }
  }
  std::cout << overlapped << " overlapped ELTWISEs, " << beside
            << " ended before the CONV in front of them\n";
  EXPECT_GT(beside, 0);
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomOverlapPrograms, ::testing::Range(0, 2));

isa::Program randomProgram(std::uint64_t seed, int tiles) {
  return sim::testing::randomTileProgram(rtl::rtlConfig(), seed, tiles);
}

// Four shards of 40 programs each (ctest runs them in parallel), 2 to 9 tiles per program.
class RandomPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomPrograms, MatchSystemC) {
  for (int k = 0; k < 40; ++k) {
    const auto seed = static_cast<std::uint64_t>(40 * GetParam() + k + 1);
    expectMatch(randomProgram(seed, 2 + static_cast<int>(seed % 8)),
                "random program seed " + std::to_string(seed));
  }
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomPrograms, ::testing::Range(0, 4));

// NORM tiles with random shapes, exp tables, epsilon terms and records (addNorm): four shards of
// 24 programs, each of four NORM tiles; every other program also has a conv, eltwise or pool tile
// after each NORM tile. A third of the programs have rows of at most 8 values (small roots, where
// the root's last bit reaches the output), a third epsilon terms up to 2^62 and shifts near 0
// (small |t|, where its rounding reaches the output; else products beyond int32 before the bias).
// All three ops must occur, and every NORM must end on the SystemC model's cycle.
class RandomNormPrograms : public ::testing::TestWithParam<int> {};

TEST_P(RandomNormPrograms, MatchSystemC) {
  using Options = sim::testing::NormOptions;
  const Options shortRows{.maxLength = 8};
  const Options wideEpsilon{.maxLength = 64, .wideEpsilon = true, .shiftLo = -6, .shiftHi = 1};
  const Options kinds[] = {Options{}, shortRows, wideEpsilon};
  int softmax = 0;
  int layerNorm = 0;
  int rmsNorm = 0;
  for (int k = 0; k < 24; ++k) {
    const auto seed = static_cast<std::uint64_t>(1000 + 24 * GetParam() + k);
    const bool mixed = k % 2 == 1;
    sim::testing::RandomProgramBuilder builder(rtl::rtlConfig(), seed);
    for (int tile = 0; tile < 4; ++tile) {
      builder.addNorm(kinds[k / 2 % 3]);
      if (mixed) {
        builder.addConvEltwiseOrPool();
      }
    }
    const isa::Program program = builder.build();
    for (const auto& tile : builder.tiles()) {
      if (const auto* norm = std::get_if<isa::Norm>(&tile.compute)) {
        ++(norm->op == isa::kNormSoftmax     ? softmax
           : norm->op == isa::kNormLayerNorm ? layerNorm
                                             : rmsNorm);
      }
    }
    const std::string what = "random NORM program seed " + std::to_string(seed);
    const CosimReport report = cosimulate(program);
    EXPECT_TRUE(report.matches()) << what << ":\n" << report.summary(program);
    EXPECT_EQ(report.cycleDelta(), 0) << what;
  }
  EXPECT_GT(softmax, 0);
  EXPECT_GT(layerNorm, 0);
  EXPECT_GT(rmsNorm, 0);
  std::cout << "co-simulated " << softmax << " softmax, " << layerNorm << " LayerNorm and "
            << rmsNorm << " RMSNorm NORMs\n";
}

INSTANTIATE_TEST_SUITE_P(Rtl, RandomNormPrograms, ::testing::Range(0, 4));

TEST(RtlCodegen, ColumnTilesPhasesKernelPartsAndPadFillsAreCycleExact) {
  // Issue 21's lowerings as codegen emits them for the RTL's config (npu-s): a layer whose
  // 1100-column rows no input half holds (column tiles), a dilation of 24 (phases over strided
  // sub-grids), a 17x17 kernel (parts accumulating), and padding of 70 (fills from pad runs).
  compiler::testing::RandomGraphBuilder b(2124);
  const compiler::TensorId wide = b.input(4, 1100, 64);
  const compiler::TensorId small = b.input(33, 33, 8);
  b.graph().outputs = {b.conv(wide, 16, 0, 3, 1, 1, 1), b.conv(small, 8, 0, 3, 1, 24, 24),
                       b.conv(small, 8, 1, 17, 2, 1, 8), b.conv(small, 4, 0, 3, 2, 1, 70)};
  const compiler::CompiledProgram compiled =
      compiler::generateProgram(b.graph(), rtl::rtlConfig(), b.randomInputs());
  expectMatch(compiled.program, "issue 21 lowerings");
}

TEST(RtlCodegen, AttentionMatMulsAreCycleExactAndGolden) {
  // One attention head group as codegen lowers it: S = Q x K^T (K laid out [N][K], produced by
  // a LUT op of the program), then O = S x V (V laid out [K][N], read by a CONV with wgt_kn,
  // also produced), 3 heads of 40 tokens and 64 channels, with zero points on the first operands;
  // and the row max and row sum of the scores (a POOL over the rows, a CONV with ones).
  using compiler::QTensor;
  compiler::QuantizedGraph g;
  auto tensor = [&](const std::string& name, std::int64_t m, std::int64_t n, std::int32_t zp) {
    g.tensors.push_back(QTensor{name, {1, 3, m, n}, 0.05, zp});
    return g.tensors.size() - 1;
  };
  const auto q = tensor("q", 40, 64, -7);
  const auto kRaw = tensor("k_raw", 40, 64, 0);
  const auto vRaw = tensor("v_raw", 40, 64, 0);
  const auto k = tensor("k", 40, 64, 0);
  const auto v = tensor("v", 40, 64, 0);
  const auto scores = tensor("s", 40, 40, -128);
  const auto out = tensor("o", 40, 64, 3);
  const auto rowMax = tensor("s_max", 40, 1, -128);
  const auto rowSum = tensor("s_sum", 40, 1, 5);
  g.inputs = {q, kRaw, vRaw};
  g.outputs = {out, rowMax, rowSum};
  golden::Lut identity{};
  for (int i = 0; i < 256; ++i) {
    identity[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i - 128) / 2);
  }
  g.ops.emplace_back(compiler::QLut{"k_lut", kRaw, k, identity});
  g.ops.emplace_back(compiler::QLut{"v_lut", vRaw, v, identity});
  golden::MatMulInt8Params qk;
  qk.zeroPointA = -7;
  qk.layoutB = golden::MatMulLayout::NK;
  qk.multiplier = golden::quantizeMultiplier(1.0 / 2048.0);
  qk.output.zeroPoint = -128;
  g.ops.emplace_back(compiler::QMatMul{"qk", q, k, scores, qk, std::nullopt});
  golden::MatMulInt8Params pv;
  pv.zeroPointA = -128;
  pv.layoutB = golden::MatMulLayout::KN;
  pv.multiplier = golden::quantizeMultiplier(1.0 / 1024.0);
  pv.output.zeroPoint = 3;
  pv.output.rounding = golden::Rounding::Double;
  g.ops.emplace_back(compiler::QMatMul{"pv", scores, v, out, pv, std::nullopt});
  g.ops.emplace_back(compiler::QReduce{"max", scores, rowMax, compiler::QReduce::Kind::Max, {}});
  golden::ReduceSumInt8Params sum;
  sum.inputZeroPoint = -128;
  sum.multiplier = golden::quantizeMultiplier(1.0 / 64.0);
  sum.output.zeroPoint = 5;
  g.ops.emplace_back(compiler::QReduce{"sum", scores, rowSum, compiler::QReduce::Kind::Sum, sum});
  std::vector<golden::Int8Tensor> inputs;
  std::uint32_t state = 2718;
  for (const auto id : g.inputs) {
    golden::Int8Tensor t = golden::makeInt8Tensor(g.tensors[id].shape);
    for (auto& value : t.data) {
      state = state * 1664525U + 1013904223U;
      value = static_cast<std::int8_t>(state >> 24);
    }
    inputs.push_back(std::move(t));
  }
  const compiler::CompiledProgram compiled = compiler::generateProgram(g, rtl::rtlConfig(), inputs);
  const CosimReport report = cosimulate(compiled.program);
  EXPECT_TRUE(report.matches()) << report.summary(compiled.program);
  const auto values = compiler::runQuantizedGraphGolden(g, inputs);
  const auto mismatch = verifyDdr(compiled, g, expectedDdr(compiled, g, values), report.rtl.ddr);
  EXPECT_FALSE(mismatch) << mismatch->message;
  // The scores are not all one value: the check above compares something.
  const auto& s = values[scores].data;
  EXPECT_NE(std::count(s.begin(), s.end(), s.front()), static_cast<std::ptrdiff_t>(s.size()));
}

TEST(RtlConfig, RejectsAnotherHardwareConfig) {
  isa::Program program = isa::assembleFile(kSource / "examples/asm/smoke.s");
  program.config.name = "npu-wide";
  program.config.macCols = 32;
  try {
    (void)rtl::runRtl(program);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "the program targets hardware config 'npu-wide', but the RTL model was built for "
                 "'npu-s'");
  }
}

// The RTL's compute control counts on an overlapped ELTWISE pushing no token: runRtl refuses a
// program (built without isa::validate) whose overlapped ELTWISE does, naming the instruction.
TEST(RtlOverlap, RejectsAnOverlappedEltwiseThatPushes) {
  isa::Program program = isa::assembleFile(kSource / "tests/data/rtl/overlap.s");
  std::size_t index = program.instructions.size();
  for (std::size_t i = 0; i < program.instructions.size() && index == program.instructions.size();
       ++i) {
    if (isa::isOverlapped(program.instructions[i])) {
      index = i;
    }
  }
  ASSERT_LT(index, program.instructions.size());
  std::get<isa::Eltwise>(program.instructions[index]).push_next = 1;
  try {
    (void)rtl::runRtl(program);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("RTL: instruction {} (ELTWISE with overlap = 1) pushes a token "
                          "(push_prev = 0, push_next = 1); an overlapped ELTWISE pushes none",
                          index));
  }
}

}  // namespace
}  // namespace npu::runtime
