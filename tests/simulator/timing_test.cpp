// Cycle counts pinned on hand-computed cases: the formulas of docs/timing.md.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>

#include "npu/simulator/timing.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

using testing::assembleProgram;

TEST(Timing, InstructionFormulas) {
  const isa::NpuConfig config = testing::smallConfig();  // 16x16, 16 B/cycle, latency 64, burst 64
  // DDR moves whole aligned 64-byte bursts of 4 beats; every run costs the bursts it touches.
  // Contiguous 256-byte load at 0: 4 bursts.
  EXPECT_EQ(instructionCycles(isa::Load{.y_size = 1, .x_size = 1, .c_bytes = 256}, config),
            64U + 16U);
  // 4 rows x 4 cols x 3 bytes, column stride 3 (a row is one 12-byte run), row stride 100: the
  // runs at 0, 100, 200 and 300 each sit inside one burst.
  EXPECT_EQ(
      instructionCycles(
          isa::Load{
              .y_size = 4, .x_size = 4, .c_bytes = 3, .ddr_row_stride = 100, .ddr_col_stride = 3},
          config),
      64U + 4U * 4U);
  // Scattered columns: runs of 20 bytes at 0, 40, 80 (bursts 0, 0, 1) and 1000, 1040, 1080
  // (bursts 15, 16, 16-17): 7 bursts = 28 beats; padding around them (4 rows x 4 cols of 20-byte
  // pixels, 6 of them data): 10 * 20 = 200 bytes = 13 beats.
  EXPECT_EQ(instructionCycles(isa::Load{.y_size = 2,
                                        .x_size = 3,
                                        .c_bytes = 20,
                                        .ddr_row_stride = 1000,
                                        .ddr_col_stride = 40,
                                        .pad_top = 1,
                                        .pad_bottom = 1,
                                        .pad_left = 1},
                              config),
            64U + 28U + 13U);
  // 100 bytes: at 0 they touch 2 bursts, at 60 three ([60, 160) reaches into burst 2).
  EXPECT_EQ(instructionCycles(isa::Load{.y_size = 1, .x_size = 1, .c_bytes = 100}, config),
            64U + 8U);
  EXPECT_EQ(instructionCycles(isa::Load{.ddr_addr = 60, .y_size = 1, .x_size = 1, .c_bytes = 100},
                              config),
            64U + 12U);
  // Burst-aligned column stride: 16-byte pixels every 64 bytes take one burst each from address
  // 8, two each from address 56 (every pixel straddles a burst boundary).
  EXPECT_EQ(
      instructionCycles(
          isa::Store{.ddr_addr = 8, .y_size = 1, .x_size = 4, .c_bytes = 16, .ddr_col_stride = 64},
          config),
      64U + 16U);
  EXPECT_EQ(
      instructionCycles(
          isa::Store{.ddr_addr = 56, .y_size = 1, .x_size = 4, .c_bytes = 16, .ddr_col_stride = 64},
          config),
      64U + 32U);
  // The burst size sets the granularity: with 16-byte bursts (one beat) the four 12-byte runs
  // above touch 1 + 1 + 2 + 2 bursts ([200, 212) and [300, 312) cross a 16-byte boundary).
  isa::NpuConfig shortBursts = config;
  shortBursts.ddrBurstBytes = 16;
  EXPECT_EQ(
      instructionCycles(
          isa::Load{
              .y_size = 4, .x_size = 4, .c_bytes = 3, .ddr_row_stride = 100, .ddr_col_stride = 3},
          shortBursts),
      64U + 6U);
  // 3x3 conv, 8x8 outputs, 40 -> 20 channels: 64 px * 2 col blocks * 9 taps * 3 row blocks + 4.
  isa::Conv conv{.out_h = 8,
                 .out_w = 8,
                 .in_w = 10,
                 .in_c = 40,
                 .out_c = 20,
                 .kh = 3,
                 .kw = 3,
                 .sh = 1,
                 .sw = 1,
                 .dh = 1,
                 .dw = 1};
  EXPECT_EQ(instructionCycles(conv, config), 64U * 2U * 9U * 3U + 4U);
  // Depthwise 3x3 over 20 channels: taps fit in the 16 rows? No: 9 <= 16 -> 1; 2 channel blocks.
  conv.depthwise = 1;
  conv.in_c = conv.out_c = 20;
  EXPECT_EQ(instructionCycles(conv, config), 64U * 2U * 1U + 4U);
  EXPECT_EQ(instructionCycles(isa::Eltwise{.count = 100}, config), 7U + 4U);
  EXPECT_EQ(instructionCycles(isa::Pool{.in_w = 4,
                                        .out_h = 2,
                                        .out_w = 2,
                                        .channels = 17,
                                        .kh = 2,
                                        .kw = 2,
                                        .sh = 2,
                                        .sw = 2},
                              config),
            2U * 2U * 4U * 2U + 4U);
  EXPECT_EQ(instructionCycles(isa::Sync{.unit = 1}, config), 1U);
}

TEST(Timing, DmaBeatsEqualTheRunByRunSum) {
  // docs/timing.md's burst rule summed run by run, against dmaBeats (which sums one period of
  // burst residues per axis): random addresses, strides, run sizes and burst sizes.
  std::mt19937_64 rng(7);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  for (int trial = 0; trial < 3000; ++trial) {
    isa::NpuConfig config;
    config.ddrBurstBytes = static_cast<std::int64_t>(std::uint64_t{1} << pick(3, 8));
    config.ddrBytesPerCycle = std::min<std::int64_t>(config.ddrBurstBytes, 16);
    const std::uint64_t burst = static_cast<std::uint64_t>(config.ddrBurstBytes);
    const std::uint64_t address = pick(0, 1 << 20);
    const std::uint64_t rows = pick(1, 40);
    const std::uint64_t cols = pick(1, 40);
    const std::uint64_t run = pick(1, 300);
    const std::uint64_t colStride = pick(0, 3) == 0 ? run : pick(0, 5000);
    const std::uint64_t rowStride = pick(0, 3) == 0 ? cols * colStride : pick(0, 100000);
    auto runBursts = [&](std::uint64_t a, std::uint64_t bytes) {
      return (a + bytes - 1) / burst - a / burst + 1;
    };
    std::uint64_t bursts = 0;
    if (colStride == run || cols == 1) {
      const std::uint64_t rowRun = run * cols;  // abutting columns are one run
      if (rowStride == rowRun || rows == 1) {
        bursts = runBursts(address, rowRun * rows);  // and abutting rows one block
      } else {
        for (std::uint64_t r = 0; r < rows; ++r) {
          bursts += runBursts(address + r * rowStride, rowRun);
        }
      }
    } else {
      for (std::uint64_t r = 0; r < rows; ++r) {
        for (std::uint64_t k = 0; k < cols; ++k) {
          bursts += runBursts(address + r * rowStride + k * colStride, run);
        }
      }
    }
    const std::uint64_t beatsPerBurst = burst / static_cast<std::uint64_t>(config.ddrBytesPerCycle);
    EXPECT_EQ(dmaBeats(address, rows, rowStride, cols, colStride, run, config),
              bursts * beatsPerBurst)
        << "address " << address << " rows " << rows << " x " << rowStride << " cols " << cols
        << " x " << colStride << " run " << run << " burst " << burst;
  }
}

TEST(Timing, DmaBeatsOfAHugeTransferAreCountedAtOnce) {
  // 65535 x 65535 runs (what a hostile STORE may name): counted in at most burst^2 steps, so
  // the watchdog budget of such a program is computed at once (it took seconds).
  isa::NpuConfig config;
  config.ddrBurstBytes = 64;
  config.ddrBytesPerCycle = 16;
  const std::uint64_t beats = dmaBeats(1, 65535, 3368728617ULL, 65535, 14909787, 243022, config);
  EXPECT_GT(beats, 65535ULL * 65535ULL);
}

TEST(Timing, StatsCountTheWholeBurstsMoved) {
  // 100 bytes from address 60 touch bursts 0-2 (192 bytes); four 16-byte pixels every 64 bytes
  // from 0x2008 one burst each (256 bytes).
  const isa::Program program = assembleProgram(
      "LOAD ddr_addr=60 y_size=1 x_size=1 c_bytes=100\n"
      "STORE ddr_addr=0x2008 y_size=1 x_size=4 c_bytes=16 ddr_col_stride=64\n"
      "END\n");
  for (const SimMode mode : {SimMode::Functional, SimMode::Timed}) {
    const SimResult result = testing::run(program, mode);
    ASSERT_FALSE(result.fault) << result.fault->what();
    EXPECT_EQ(result.stats.ddrBytesRead, 100U);
    EXPECT_EQ(result.stats.ddrBytesWritten, 64U);
    EXPECT_EQ(result.stats.ddrBurstBytes, 192U + 256U);
  }
}

TEST(Timing, SmokeProgramEndToEnd) {
  // fetch latency 64; three loads 80 + 80 + 76; conv 16 + 4; store 80.
  const isa::Program program =
      isa::assembleFile(std::filesystem::path(NPU_SOURCE_DIR) / "examples/asm/smoke.s");
  const SimResult result = testing::run(program, SimMode::Timed);
  ASSERT_FALSE(result.fault);
  EXPECT_EQ(result.stats.totalCycles, 64U + 80U + 80U + 76U + 20U + 80U);
  EXPECT_EQ(result.stats.units.at("load").busyCycles, 236U);
  EXPECT_EQ(result.stats.units.at("mac_array").busyCycles, 20U);
  EXPECT_EQ(result.stats.units.at("compute").stallCycles.at("token_wait"), 300U - 67U);
}

TEST(Timing, DdrPortTieGoesToTheStore) {
  // LOAD 0 (68 cycles from 64: 16 bytes take a whole 4-beat burst), SYNC 1 at 132..133 pushes
  // to both sides; STORE 2 and LOAD 3 then request the port in the same cycle 133: the store
  // wins, the load follows.
  const isa::Program program = assembleProgram(
      "LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "SYNC pop_prev=1 push_prev=1 push_next=1 unit=1\n"
      "STORE pop_prev=1 ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD pop_next=1 ddr_addr=0x3000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  const SimResult result = testing::run(program, SimMode::Timed);
  ASSERT_FALSE(result.fault) << result.fault->what();
  EXPECT_EQ(result.endCycles[0], 132U);
  EXPECT_EQ(result.endCycles[1], 133U);
  EXPECT_EQ(result.endCycles[2], 201U);
  EXPECT_EQ(result.endCycles[3], 269U);
  EXPECT_EQ(result.stats.totalCycles, 269U);
  EXPECT_EQ(result.stats.units.at("load").stallCycles.at("ddr_port"), 68U);
}

TEST(Timing, LoadOverlapsComputeUnlessForcedSerial) {
  // LOAD 0: 64..132 (16 bytes, one 4-beat burst). CONV 1: 132..(132 + 16 px * 1 * 9 taps * 4
  // row blocks + 4). LOAD 2 touches another SRAM range and runs under the conv: 132..200.
  const isa::Program program = assembleProgram(
      "LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "CONV pop_prev=1 out_h=4 out_w=4 in_w=6 in_c=64 out_c=16 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 "
      "acc_init=1\n"
      "LOAD sram_addr=0x10000 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  SimOptions options;
  options.checkHazards = false;  // the conv reads input SRAM nobody loaded; only timing matters
  const SimResult overlapped = testing::run(program, SimMode::Timed, options);
  ASSERT_FALSE(overlapped.fault) << overlapped.fault->what();
  const std::uint64_t convCycles = 16U * 9U * 4U + 4U;
  EXPECT_EQ(overlapped.endCycles[1], 132U + convCycles);
  EXPECT_EQ(overlapped.endCycles[2], 200U);
  EXPECT_EQ(overlapped.stats.totalCycles, 132U + convCycles);
  options.forceSerial = true;
  const SimResult serial = testing::run(program, SimMode::Timed, options);
  EXPECT_EQ(serial.stats.totalCycles, 132U + convCycles + 68U);
}

// LOAD 0: 64..132. CONV 1: 132..712 (580 cycles, as above; it keeps its sums in the
// accumulator). ELTWISE 2 (1600 elements: 100 + 4 cycles) touches neither the CONV's input nor
// its accumulator. CONV 3 waits for both sides.
std::string besideProgram(int overlap, std::int64_t eltwiseOut) {
  return fmt::format(
      "LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "CONV pop_prev=1 out_h=4 out_w=4 in_w=6 in_c=64 out_c=16 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 "
      "acc_init=1\n"
      "ELTWISE op=0 a_addr=0x8000 b_addr=0x9000 out_addr={:#x} out_buf=1 count=1600 "
      "clip_lo=-128 clip_hi=127 overlap={}\n"
      "CONV out_h=4 out_w=4 in_w=6 in_c=64 out_c=16 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 acc_init=1 "
      "acc_addr=0x400\n"
      "END\n",
      eltwiseOut, overlap);
}

TEST(Timing, OverlappedEltwiseRunsBesideTheConv) {
  const std::uint64_t convCycles = 16U * 9U * 4U + 4U;
  const std::uint64_t eltwiseCycles = 1600U / 16U + 4U;
  const SimResult beside = testing::run(assembleProgram(besideProgram(1, 0xa000)), SimMode::Timed);
  ASSERT_FALSE(beside.fault) << beside.fault->what();
  EXPECT_EQ(beside.endCycles[1], 132U + convCycles);
  EXPECT_EQ(beside.endCycles[2], 132U + eltwiseCycles);
  EXPECT_EQ(beside.endCycles[3], 132U + 2 * convCycles);
  EXPECT_EQ(beside.stats.units.at("vector").busyCycles, eltwiseCycles);
  // The unit's busy cycles are those with something running, not the sum of both sides, and its
  // stalls only those with nothing running: together they are the run.
  const UnitStats& compute = beside.stats.units.at("compute");
  EXPECT_EQ(compute.busyCycles, 2 * convCycles);
  std::uint64_t stalls = 0;
  for (const auto& [reason, cycles] : compute.stallCycles) {
    stalls += cycles;
  }
  EXPECT_EQ(compute.busyCycles + stalls, beside.stats.totalCycles);

  const SimResult serial = testing::run(assembleProgram(besideProgram(0, 0xa000)), SimMode::Timed);
  ASSERT_FALSE(serial.fault) << serial.fault->what();
  EXPECT_EQ(serial.endCycles[2], 132U + convCycles + eltwiseCycles);
  EXPECT_EQ(serial.stats.totalCycles, 132U + 2 * convCycles + eltwiseCycles);
  EXPECT_EQ(serial.stats.units.at("compute").busyCycles, 2 * convCycles + eltwiseCycles);
}

TEST(Timing, AWatchdogNamesTheConvItsSideRuns) {
  // The compute unit's dispatcher waits for a command after handing the CONV to its side; the
  // message names the CONV, not an idle unit (found by review).
  SimOptions options;
  options.maxCycles = 300;
  const SimResult result = testing::run(
      assembleProgram("LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
                      "CONV pop_prev=1 out_h=4 out_w=4 in_w=6 in_c=64 out_c=16 kh=3 kw=3 sh=1 "
                      "sw=1 dh=1 dw=1 acc_init=1\n"
                      "END\n"),
      SimMode::Timed, options);
  ASSERT_TRUE(result.fault);
  EXPECT_NE(std::string(result.fault->what())
                .find(fmt::format("compute unit runs instruction 1 (CONV) until cycle {}",
                                  132U + 16U * 9U * 4U + 4U)),
            std::string::npos)
      << result.fault->what();
}

TEST(Timing, OverlappedEltwiseThatWritesTheConvsInputIsAHazard) {
  // The ELTWISE's output (input SRAM 0x0..) is what CONV 1 reads beside it.
  const SimResult result = testing::run(assembleProgram(besideProgram(1, 0x0)), SimMode::Timed);
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.fault->kind(), FaultKind::Hazard);
  EXPECT_NE(std::string(result.fault->what()).find("instruction 1 (CONV, compute unit) reads"),
            std::string::npos)
      << result.fault->what();
  EXPECT_NE(std::string(result.fault->what()).find("the overlapped ELTWISE may run beside it"),
            std::string::npos);
  // Without overlap the same program is ordered by the compute unit.
  EXPECT_FALSE(testing::run(assembleProgram(besideProgram(0, 0x0)), SimMode::Timed).fault);
}

TEST(Timing, AConvOrderedBeforeAnOverlappedEltwiseThroughTokensIsNoHazard) {
  // CONV 1 writes what ELTWISE 3 reads, and the ELTWISE runs beside CONVs; but LOAD 0 waits for
  // the CONV, LOAD 2 follows LOAD 0, and the ELTWISE waits for LOAD 2: the tokens order them
  // round the load unit (found by review: the check used to report a hazard here).
  const SimResult result = testing::run(
      assembleProgram(
          "LOAD pop_next=1 sram_addr=0x2000 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
          "CONV push_prev=1 out_addr=0x1c0 out_buf=1 out_h=1 out_w=1 in_w=1 in_c=16 out_c=16 "
          "kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
          "LOAD push_next=1 sram_addr=0x400 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
          "ELTWISE pop_prev=1 a_addr=0x400 b_addr=0x1c0 out_addr=0x800 count=16 clip_lo=-128 "
          "clip_hi=127 overlap=1\n"
          "END\n"),
      SimMode::Timed);
  EXPECT_FALSE(result.fault) << result.fault->what();
}

TEST(Timing, AnOverlappedEltwiseMayUnblockTheConvBesideIt) {
  // Token queues of depth 2. The CONV cannot push to the full compute->store queue until
  // the store unit pops it, and the store unit waits for room in store->compute, which the
  // overlapped ELTWISE behind the CONV makes (found by review: the token analysis used to call
  // this a deadlock because it ran compute one instruction at a time).
  isa::Program program = assembleProgram(
      "SYNC push_next=1 unit=1\n"
      "SYNC push_next=1 unit=1\n"
      "STORE push_prev=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "STORE push_prev=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "STORE push_prev=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "STORE pop_prev=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "CONV push_next=1 out_h=1 out_w=1 in_w=1 in_c=16 out_c=16 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 "
      "clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
      "ELTWISE pop_next=1 a_addr=0x400 b_addr=0x500 out_addr=0x200 count=16 clip_lo=-128 "
      "clip_hi=127 overlap=1\n"
      "END\n");
  program.config.tokenQueueDepth = 2;
  SimOptions options;
  options.checkHazards = false;  // the stores rewrite one DDR block; only the tokens matter here
  const SimResult timed = testing::run(program, SimMode::Timed, options);
  EXPECT_FALSE(timed.fault) << timed.fault->what();
  const SimResult functional = testing::run(program, SimMode::Functional, options);
  EXPECT_FALSE(functional.fault) << functional.fault->what();
}

TEST(Timing, OverlappedEltwiseMayNotPushTokens) {
  EXPECT_THROW(assembleProgram("ELTWISE push_prev=1 count=16 overlap=1\nEND\n"), Error);
}

TEST(Timing, FullInstructionQueueStallsFetch) {
  // Depth-1 queues: the second LOAD waits in fetch until the first has started.
  isa::Program program = assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  program.config.instructionQueueDepth = 1;
  const SimResult result = testing::run(program, SimMode::Timed);
  ASSERT_FALSE(result.fault) << result.fault->what();
  EXPECT_EQ(result.stats.totalCycles, 64U + 3U * 68U);
  EXPECT_GT(result.stats.units.at("fetch").stallCycles.at("queue_full"), 0U);
}

}  // namespace
}  // namespace npu::sim
