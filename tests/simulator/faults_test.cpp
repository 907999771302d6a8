// Every fault kind stops the run with its exact message, in both modes, and leaves DDR and
// stats of the state so far.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "npu/isa/encoding.h"
#include "npu/simulator/timing.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

using testing::assembleProgram;
using testing::faultMessage;
using testing::run;

class Faults : public ::testing::TestWithParam<SimMode> {};

TEST_P(Faults, SramOutOfRange) {
  const isa::Program program = assembleProgram(
      ".data 0x1000 0102030405060708\n"
      "LOAD sram_addr=0x1fff8 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\n"
      "LOAD sram_addr=0x1fffc ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\n"
      "END\n");
  const SimResult result = run(program, GetParam());
  EXPECT_EQ(faultMessage(result),
            "sram-out-of-range fault at instruction 1 (LOAD, load unit): input SRAM write "
            "[0x1fffc, 0x20004) exceeds its 131072 bytes");
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.fault->kind(), FaultKind::SramOutOfRange);
  EXPECT_EQ(result.fault->instruction(), 1);
}

TEST_P(Faults, AHugeDamagedLoadFaultsAtOnce) {
  // A LOAD whose sizes were damaged to 61456 x 65535 x 65535 bytes: the hazard analysis before
  // the run must not walk its 4e9 DDR runs (it took minutes), the run faults on the SRAM bound.
  const isa::Program program = assembleProgram(
      "LOAD sram_addr=0x0 ddr_addr=0x1000 y_size=61456 x_size=65535 c_bytes=65535\n"
      "END\n");
  const SimResult result = run(program, GetParam());
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.fault->kind(), FaultKind::SramOutOfRange);
  EXPECT_EQ(result.fault->instruction(), 0);
}

TEST_P(Faults, DdrOutOfRange) {
  const isa::Program program = assembleProgram(
      "LOAD sram_addr=0x0 ddr_addr=0x3ffffff y_size=1 x_size=1 c_bytes=2\n"
      "END\n");
  EXPECT_EQ(faultMessage(run(program, GetParam())),
            "ddr-out-of-range fault at instruction 0 (LOAD, load unit): DDR read [0x3ffffff, "
            "0x4000001) exceeds its 67108864 bytes");
}

TEST_P(Faults, Deadlock) {
  // Compute waits for a load token nobody pushes.
  const isa::Program program = assembleProgram(
      "SYNC unit=0\n"
      "SYNC pop_prev=1 unit=1\n"
      "SYNC pop_prev=1 unit=2\n"
      "END\n");
  const SimResult result = run(program, GetParam());
  EXPECT_EQ(faultMessage(result),
            "deadlock fault at instruction 1: no unit can progress; load unit idle; compute unit "
            "waits at instruction 1 (SYNC) for a load->compute token; store unit waits at "
            "instruction 2 (SYNC) for a compute->store token; fetch has reached END (instruction "
            "3)");
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.fault->kind(), FaultKind::Deadlock);
  EXPECT_EQ(result.fault->instruction(), 1);
}

TEST_P(Faults, DeadlockBehindAFullInstructionQueue) {
  // The token compute waits for comes from a load that fetch never reaches: dispatch is in
  // order, and the compute queue fills up first.
  const isa::Program base = assembleProgram("END\n");
  const auto depth = static_cast<std::size_t>(base.config.instructionQueueDepth);
  std::string body = "SYNC pop_prev=1 unit=1\n";
  for (std::size_t k = 0; k < depth; ++k) {
    body += "SYNC unit=1\n";
  }
  body += "SYNC push_next=1 unit=0\nEND\n";
  const SimResult result = run(assembleProgram(body), GetParam());
  EXPECT_EQ(faultMessage(result),
            fmt::format("deadlock fault at instruction 0: no unit can progress; load unit idle; "
                        "compute unit waits at instruction 0 (SYNC) for a load->compute token; "
                        "store unit idle; fetch waits at instruction {} (SYNC) for room in the "
                        "full compute queue",
                        depth));
}

TEST_P(Faults, HazardNamesBothInstructions) {
  // The conv reads the input tile before any token says the load has written it.
  const isa::Program program = assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD buf=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD buf=2 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=12\n"
      "CONV out_h=1 out_w=1 in_w=1 in_c=16 out_c=1 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 "
      "clip_hi=127 acc_init=1 finalize=1\n"
      "END\n");
  const SimResult result = run(program, GetParam());
  EXPECT_EQ(faultMessage(result),
            "hazard fault at instruction 3: instruction 3 (CONV, compute unit) reads input SRAM "
            "byte 0x0, which instruction 0 (LOAD, load unit) writes (earlier in program order); "
            "no dependency token orders them");
  // The same program with the token is clean.
  const isa::Program fixed = assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD buf=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD push_next=1 buf=2 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=12\n"
      "CONV pop_prev=1 out_h=1 out_w=1 in_w=1 in_c=16 out_c=1 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 "
      "clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
      "END\n");
  EXPECT_EQ(faultMessage(run(fixed, GetParam())), "(no fault)");
}

TEST_P(Faults, WriteAfterReadHazard) {
  // The second load overwrites the tile while the conv may still be reading it.
  const isa::Program program = assembleProgram(
      "LOAD push_next=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "CONV pop_prev=1 out_h=1 out_w=1 in_w=1 in_c=16 out_c=1 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 "
      "acc_init=1\n"
      "LOAD ddr_addr=0x2000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  EXPECT_EQ(faultMessage(run(program, GetParam())),
            "hazard fault at instruction 2: instruction 2 (LOAD, load unit) writes input SRAM "
            "byte 0x0, which instruction 1 (CONV, compute unit) reads (earlier in program "
            "order); no dependency token orders them");
}

TEST_P(Faults, IllegalWordInDdr) {
  isa::Program program = assembleProgram("SYNC unit=1\nSYNC unit=2\nEND\n");
  isa::DdrImage ddr = isa::DdrImage::fromProgram(program);
  ddr.writeByte(isa::kWordBytes * 1, 0x0F);  // word 1 becomes opcode 15
  SimOptions options;
  options.mode = GetParam();
  const SimResult result = simulate(program.config, ddr, 0, options);
  EXPECT_EQ(faultMessage(result),
            "illegal-word fault at instruction 1 (fetch unit, DDR 0x20): word 1: illegal opcode "
            "0xf");
  EXPECT_EQ(result.ddr, ddr);
}

TEST_P(Faults, FetchRunsOffTheEndOfDdr) {
  isa::Program program = assembleProgram("SYNC unit=1\nEND\n");
  isa::DdrImage ddr(64);
  const auto code = isa::encode(isa::Sync{.unit = 1});
  ddr.write(0, code);
  ddr.write(32, code);
  SimOptions options;
  options.mode = GetParam();
  EXPECT_EQ(faultMessage(simulate(program.config, ddr, 0, options)),
            "ddr-out-of-range fault at instruction 2 (fetch unit): fetch reached the end of DDR at "
            "0x40 without an END");
}

// The engines remember streams that passed the token analysis and hazard check (every input of a
// model runs the same stream); a remembered stream must never let another stream, a faulting one,
// or one checked without hazards skip a check it needs.
TEST_P(Faults, RememberedStreamsNeverSkipANeededCheck) {
  const std::string loads =
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n"
      "LOAD buf=1 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=16\n";
  const std::string conv =
      "out_h=1 out_w=1 in_w=1 in_c=16 out_c=1 kh=1 kw=1 sh=1 sw=1 dh=1 dw=1 clip_lo=-128 "
      "clip_hi=127 acc_init=1 finalize=1\n";
  const isa::Program clean = assembleProgram(
      loads + "LOAD push_next=1 buf=2 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=12\n" +
      "CONV pop_prev=1 " + conv + "END\n");
  // The same instructions but for the token: the conv reads the tiles unordered.
  const isa::Program racy =
      assembleProgram(loads + "LOAD buf=2 ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=12\n" +
                      "CONV " + conv + "END\n");
  const std::string hazard =
      "hazard fault at instruction 3: instruction 3 (CONV, compute unit) reads input SRAM byte "
      "0x0, which instruction 0 (LOAD, load unit) writes (earlier in program order); no "
      "dependency token orders them";
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(faultMessage(run(clean, GetParam())), "(no fault)");
    // Faults are not remembered: the racy stream faults on every run, after the clean one too.
    EXPECT_EQ(faultMessage(run(racy, GetParam())), hazard);
  }
  // Passing without the hazard check does not count as passing it.
  SimOptions unchecked;
  unchecked.checkHazards = false;
  EXPECT_EQ(faultMessage(run(racy, GetParam(), unchecked)), "(no fault)");
  EXPECT_EQ(faultMessage(run(racy, GetParam())), hazard);
  // Nor does passing under another configuration: compute's token comes from a load that fetch
  // reaches only if the compute queue holds all the SYNCs before it.
  isa::Program deep = assembleProgram("END\n");
  const auto depth = static_cast<std::size_t>(deep.config.instructionQueueDepth);
  std::string body = "SYNC pop_prev=1 unit=1\n";
  for (std::size_t k = 0; k < depth; ++k) {
    body += "SYNC unit=1\n";
  }
  body += "SYNC push_next=1 unit=0\nEND\n";
  deep = assembleProgram(body);
  const isa::Program shallow = deep;
  deep.config.instructionQueueDepth *= 2;
  EXPECT_EQ(faultMessage(run(deep, GetParam())), "(no fault)");
  ASSERT_TRUE(run(shallow, GetParam()).fault);
  EXPECT_EQ(run(shallow, GetParam()).fault->kind(), FaultKind::Deadlock);
}

INSTANTIATE_TEST_SUITE_P(BothModes, Faults, ::testing::Values(SimMode::Functional, SimMode::Timed),
                         [](const auto& info) {
                           return info.param == SimMode::Functional ? "functional" : "timed";
                         });

// The watchdog names what every unit and fetch is doing. Expected cycles come from the timing
// formulas (instructionCycles) and the fetch latency, so the messages follow formula changes.

TEST(TimedFaults, WatchdogNamesBusyAndTokenWaitingUnits) {
  const isa::Program program = assembleProgram(
      "LOAD push_next=1 ddr_addr=0x1000 y_size=64 x_size=64 c_bytes=16 ddr_row_stride=1024 "
      "ddr_col_stride=16\n"
      "CONV pop_prev=1 push_next=1 out_h=1 out_w=1 in_w=1 in_c=16 out_c=16 kh=1 kw=1 sh=1 sw=1 "
      "dh=1 dw=1 clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n"
      "STORE pop_prev=1 ddr_addr=0x20000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  SimOptions options;
  options.maxCycles = 500;
  const SimResult result = run(program, SimMode::Timed, options);
  // Fetch hands the LOAD over as its first word arrives; it starts at once.
  const std::uint64_t loadEnd = static_cast<std::uint64_t>(program.config.ddrLatencyCycles) +
                                instructionCycles(program.instructions[0], program.config);
  ASSERT_GT(loadEnd, options.maxCycles);
  EXPECT_EQ(faultMessage(result),
            fmt::format("watchdog fault: still running after 500 cycles; load unit runs "
                        "instruction 0 (LOAD) until cycle {}; compute unit waits at instruction 1 "
                        "(CONV) for a load->compute token; store unit waits at instruction 2 "
                        "(STORE) for a compute->store token; fetch has reached END (instruction "
                        "3)",
                        loadEnd));
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.fault->kind(), FaultKind::Watchdog);
  EXPECT_EQ(result.fault->instruction(), 0);
  EXPECT_EQ(result.stats.totalCycles, 500U);
}

TEST(TimedFaults, WatchdogNamesTheHolderOfTheDdrPort) {
  const isa::Program program = assembleProgram(
      "LOAD ddr_addr=0x1000 y_size=64 x_size=64 c_bytes=16 ddr_row_stride=1024 "
      "ddr_col_stride=16\n"
      "STORE ddr_addr=0x20000 y_size=1 x_size=1 c_bytes=16\n"
      "END\n");
  SimOptions options;
  options.maxCycles = 500;
  const std::uint64_t loadEnd = static_cast<std::uint64_t>(program.config.ddrLatencyCycles) +
                                instructionCycles(program.instructions[0], program.config);
  ASSERT_GT(loadEnd, options.maxCycles);
  EXPECT_EQ(faultMessage(run(program, SimMode::Timed, options)),
            fmt::format("watchdog fault: still running after 500 cycles; load unit runs "
                        "instruction 0 (LOAD) until cycle {}; compute unit idle; store unit waits "
                        "at instruction 1 (STORE) for the DDR port, held by the load unit; fetch "
                        "has reached END (instruction 2)",
                        loadEnd));
  // Under --force-serial the store waits for the load to end instead.
  options.forceSerial = true;
  EXPECT_EQ(faultMessage(run(program, SimMode::Timed, options)),
            fmt::format("watchdog fault: still running after 500 cycles; load unit runs "
                        "instruction 0 (LOAD) until cycle {}; compute unit idle; store unit waits "
                        "at instruction 1 (STORE) for the previous instruction (force-serial); "
                        "fetch has reached END (instruction 2)",
                        loadEnd));
}

TEST(TimedFaults, WatchdogNamesFullQueues) {
  // A long CONV holds compute while the load unit's SYNCs fill the load->compute token queue
  // and the compute SYNCs behind the CONV fill the compute instruction queue.
  const isa::Program base = assembleProgram("END\n");
  const auto tokenDepth = static_cast<std::size_t>(base.config.tokenQueueDepth);
  const auto queueDepth = static_cast<std::size_t>(base.config.instructionQueueDepth);
  std::string body =
      "CONV out_h=4 out_w=4 in_w=6 in_c=256 out_c=16 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 "
      "clip_lo=-128 clip_hi=127 acc_init=1 finalize=1\n";
  for (std::size_t k = 0; k <= tokenDepth; ++k) {
    body += "SYNC push_next=1 unit=0\n";  // the last one finds the token queue full
  }
  for (std::size_t k = 0; k <= queueDepth; ++k) {
    body += k <= tokenDepth ? "SYNC pop_prev=1 unit=1\n" : "SYNC unit=1\n";
  }
  body += "END\n";
  const isa::Program program = assembleProgram(body);
  SimOptions options;
  options.maxCycles = 1000;
  const std::uint64_t convEnd = static_cast<std::uint64_t>(program.config.ddrLatencyCycles) +
                                instructionCycles(program.instructions[0], program.config);
  ASSERT_GT(convEnd, options.maxCycles);
  const std::size_t blockedFetch = 1 + (tokenDepth + 1) + queueDepth;
  EXPECT_EQ(faultMessage(run(program, SimMode::Timed, options)),
            fmt::format("watchdog fault: still running after 1000 cycles; load unit waits at "
                        "instruction {} (SYNC) for room in the full load->compute token queue; "
                        "compute unit runs instruction 0 (CONV) until cycle {}; store unit idle; "
                        "fetch waits at instruction {} (SYNC) for room in the full compute queue",
                        tokenDepth + 1, convEnd, blockedFetch));
}

TEST(TimedFaults, WatchdogBeforeTheFirstWord) {
  const isa::Program program = assembleProgram("SYNC unit=1\nEND\n");
  SimOptions options;
  options.maxCycles = 10;
  ASSERT_GT(program.config.ddrLatencyCycles, 10);
  EXPECT_EQ(faultMessage(run(program, SimMode::Timed, options)),
            fmt::format("watchdog fault: still running after 10 cycles; load unit idle; compute "
                        "unit idle; store unit idle; fetch reads instruction 0 until cycle {}",
                        program.config.ddrLatencyCycles));
}

TEST(TimedFaults, FaultStillReportsStatsSoFar) {
  const isa::Program program = assembleProgram(
      ".data 0x1000 0102030405060708\n"
      "LOAD ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\n"
      "LOAD sram_addr=0x1fffc ddr_addr=0x1000 y_size=1 x_size=1 c_bytes=8\n"
      "END\n");
  const SimResult result = run(program, SimMode::Timed);
  ASSERT_TRUE(result.fault);
  EXPECT_EQ(result.stats.units.at("load").instructions, 1U);
  // The first load starts as its word arrives (the fetch latency); the run stops when it ends.
  EXPECT_EQ(result.stats.totalCycles,
            static_cast<std::uint64_t>(program.config.ddrLatencyCycles) +
                instructionCycles(program.instructions[0], program.config));
}

}  // namespace
}  // namespace npu::sim
