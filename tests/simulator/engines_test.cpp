// The functional and timed engines agree on every random program, and runs are deterministic.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "random_program.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

isa::Program randomProgram(std::uint64_t seed, int tiles) {
  testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
  for (int i = 0; i < tiles; ++i) {
    switch (builder.pick(0, 2)) {
      case 0:
        builder.addConv();
        break;
      case 1:
        builder.addEltwise();
        break;
      default:
        builder.addPool();
        break;
    }
  }
  return builder.build();
}

TEST(Engines, FunctionalAndTimedEndWithTheSameDdr) {
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    const isa::Program program = randomProgram(seed, 6);
    const SimResult functional = testing::run(program, SimMode::Functional);
    const SimResult timed = testing::run(program, SimMode::Timed);
    ASSERT_FALSE(functional.fault) << functional.fault->what();
    ASSERT_FALSE(timed.fault) << timed.fault->what();
    ASSERT_TRUE(functional.ddr == timed.ddr) << "seed " << seed;
    EXPECT_EQ(functional.stats.macs, timed.stats.macs);
    EXPECT_EQ(functional.stats.ddrBytesRead, timed.stats.ddrBytesRead);
    EXPECT_GT(timed.stats.totalCycles, 0U);
    // The program changed DDR only inside its output regions.
    const DdrImage initial = DdrImage::fromProgram(program);
    EXPECT_FALSE(initial == functional.ddr);
  }
}

TEST(Engines, ForceSerialChangesCyclesNotData) {
  const isa::Program program = randomProgram(99, 8);
  SimOptions serial;
  serial.forceSerial = true;
  const SimResult overlapped = testing::run(program, SimMode::Timed);
  const SimResult serialized = testing::run(program, SimMode::Timed, serial);
  ASSERT_FALSE(serialized.fault) << serialized.fault->what();
  EXPECT_TRUE(overlapped.ddr == serialized.ddr);
  EXPECT_GE(serialized.stats.totalCycles, overlapped.stats.totalCycles);
}

TEST(Engines, CountOnlyKeepsCyclesAndSkipsData) {
  const isa::Program program = randomProgram(5, 4);
  SimOptions countOnly;
  countOnly.countOnly = true;
  const SimResult full = testing::run(program, SimMode::Timed);
  const SimResult counted = testing::run(program, SimMode::Timed, countOnly);
  EXPECT_EQ(full.stats.totalCycles, counted.stats.totalCycles);
  EXPECT_TRUE(counted.ddr == DdrImage::fromProgram(program));
}

TEST(Engines, RunsAreDeterministic) {
  const isa::Program program = randomProgram(7, 10);
  for (const SimMode mode : {SimMode::Functional, SimMode::Timed}) {
    SimOptions options;
    options.collectTrace = true;
    const SimResult first = testing::run(program, mode, options);
    const SimResult second = testing::run(program, mode, options);
    EXPECT_TRUE(first.ddr == second.ddr);
    EXPECT_EQ(statsToJson(first.stats, first.fault), statsToJson(second.stats, second.fault));
    EXPECT_EQ(traceToJson(first.trace), traceToJson(second.trace));
    EXPECT_EQ(first.endCycles, second.endCycles);
  }
}

TEST(Engines, TraceFollowsTheTraceEventFormat) {
  const isa::Program program = randomProgram(11, 3);
  SimOptions options;
  options.collectTrace = true;
  const SimResult result = testing::run(program, SimMode::Timed, options);
  const auto json = nlohmann::json::parse(traceToJson(result.trace));
  ASSERT_TRUE(json.contains("traceEvents"));
  ASSERT_TRUE(json["traceEvents"].is_array());
  std::size_t spans = 0;
  for (const auto& event : json["traceEvents"]) {
    ASSERT_TRUE(event["name"].is_string());
    ASSERT_TRUE(event["ph"].is_string());
    ASSERT_TRUE(event["pid"].is_number_integer());
    ASSERT_TRUE(event["tid"].is_number_integer());
    const std::string phase = event["ph"];
    ASSERT_TRUE(phase == "X" || phase == "M") << phase;
    if (phase == "X") {
      ASSERT_TRUE(event["ts"].is_number());
      ASSERT_TRUE(event["dur"].is_number());
      ASSERT_GE(event["dur"].get<double>(), 0.0);
      ++spans;
    } else {
      ASSERT_TRUE(event["args"]["name"].is_string());
    }
  }
  // One span per executed instruction (END included, on the fetch track).
  EXPECT_EQ(spans, program.instructions.size());
  const std::string vcd = traceToVcd(result.trace, result.stats.totalCycles);
  EXPECT_NE(vcd.find("$enddefinitions $end"), std::string::npos);
}

TEST(Engines, StatsJsonCarriesTheDocumentedKeys) {
  const SimResult result = testing::run(randomProgram(3, 3), SimMode::Timed);
  const auto json = nlohmann::json::parse(statsToJson(result.stats, result.fault));
  for (const char* key : {"mode", "total_cycles", "macs", "mac_utilization", "ddr_bytes_read",
                          "ddr_bytes_written", "units", "opcode_counts", "fault"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  for (const char* unit : {"fetch", "load", "compute", "store"}) {
    EXPECT_TRUE(json["units"].contains(unit)) << unit;
  }
}

}  // namespace
}  // namespace npu::sim
