// The functional and timed engines agree on every random program, runs are deterministic, and
// the trace, VCD and stats outputs describe every unit.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "npu/simulator/datapath.h"
#include "npu/simulator/timing.h"
#include "random_program.h"
#include "sim_test_util.h"

namespace npu::sim {
namespace {

isa::Program randomProgram(std::uint64_t seed, int tiles) {
  return testing::randomTileProgram(testing::smallConfig(), seed, tiles);
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
    const isa::DdrImage initial = isa::DdrImage::fromProgram(program);
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

TEST(Engines, DefaultWatchdogIsDerivedFromTheProgram) {
  // The derived budget leaves every run room: even fully serialised (no unit overlapping another,
  // the slowest a correct program can run) a run stays under half of it.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const isa::Program program = randomProgram(seed, 2 + static_cast<int>(seed));
    SimOptions serial;
    serial.forceSerial = true;
    const SimResult serialized = testing::run(program, SimMode::Timed, serial);
    ASSERT_FALSE(serialized.fault) << serialized.fault->what();
    const std::uint64_t budget = cycleBudget(program.instructions, program.config);
    EXPECT_LT(2 * serialized.stats.totalCycles, budget) << "seed " << seed;
    EXPECT_GE(budget, 1'000'000U);
  }
  // A budget is per program: a longer stream of the same tiles gets more cycles.
  EXPECT_LT(cycleBudget(randomProgram(7, 2).instructions, randomProgram(7, 2).config),
            cycleBudget(randomProgram(7, 12).instructions, randomProgram(7, 12).config));
}

TEST(Engines, CountOnlyKeepsCyclesAndSkipsData) {
  const isa::Program program = randomProgram(5, 4);
  SimOptions countOnly;
  countOnly.countOnly = true;
  const SimResult full = testing::run(program, SimMode::Timed);
  const SimResult counted = testing::run(program, SimMode::Timed, countOnly);
  EXPECT_EQ(full.stats.totalCycles, counted.stats.totalCycles);
  EXPECT_TRUE(counted.ddr == isa::DdrImage::fromProgram(program));
}

TEST(Engines, RunsAreDeterministic) {
  const isa::Program program = randomProgram(7, 10);
  for (const SimMode mode : {SimMode::Functional, SimMode::Timed}) {
    SimOptions options;
    options.collectTrace = true;
    const SimResult first = testing::run(program, mode, options);
    const SimResult second = testing::run(program, mode, options);
    EXPECT_TRUE(first.ddr == second.ddr);
    EXPECT_EQ(statsToJson(first.stats, first.fault, {}),
              statsToJson(second.stats, second.fault, {}));
    EXPECT_EQ(traceToJson(first.trace, {}), traceToJson(second.trace, {}));
    EXPECT_EQ(first.endCycles, second.endCycles);
  }
}

/// Two 3x3 convs of 64 -> 64 channels over a 16x16 tile (7.2 M MACs each, enough for the
/// datapath to split its rows over threads): the first accumulates only, the second adds to it and
/// finalizes, so both the accumulator and the output paths run threaded.
isa::Program largeConvProgram() {
  isa::Program program = testing::assembleProgram(
      "LOAD ddr_addr=0x10000 y_size=1 x_size=1 c_bytes=16384\n"
      "LOAD buf=1 ddr_addr=0x20000 y_size=1 x_size=1 c_bytes=36864\n"
      "LOAD push_next=1 buf=2 ddr_addr=0x30000 y_size=1 x_size=1 c_bytes=768\n"
      "CONV pop_prev=1 out_h=14 out_w=14 in_w=16 in_c=64 out_c=64 kh=3 kw=3 sh=1 sw=1 dh=1 dw=1 "
      "in_zp=3 acc_init=1\n"
      "CONV push_next=1 out_h=14 out_w=14 in_w=16 in_c=64 out_c=64 kh=3 kw=3 sh=1 sw=1 dh=1 "
      "dw=1 in_zp=-7 out_zp=5 clip_lo=-100 clip_hi=120 finalize=1\n"
      "STORE pop_prev=1 ddr_addr=0x40000 y_size=1 x_size=1 c_bytes=12544\n"
      "END\n");
  std::mt19937 rng(5);
  auto randomBytes = [&](std::size_t n) {
    std::vector<std::uint8_t> bytes(n);
    for (auto& b : bytes) {
      b = static_cast<std::uint8_t>(rng());
    }
    return bytes;
  };
  program.segments.push_back({0x10000, randomBytes(16384)});
  program.segments.push_back({0x20000, randomBytes(36864)});
  std::vector<std::uint8_t> params;
  for (int oc = 0; oc < 64; ++oc) {
    const std::int32_t record[3] = {static_cast<std::int32_t>(rng() % 20001) - 10000,
                                    (1 << 30) + static_cast<std::int32_t>(rng() % (1U << 30)),
                                    -12 - static_cast<std::int32_t>(rng() % 4)};
    const auto* raw = reinterpret_cast<const std::uint8_t*>(record);
    params.insert(params.end(), raw, raw + sizeof record);
  }
  program.segments.push_back({0x30000, params});
  return program;
}

TEST(Engines, DatapathThreadsChangeNothing) {
  const isa::Program program = largeConvProgram();
  // The program's convs are large enough to be split, or this test would test nothing.
  ASSERT_EQ(convDatapathParts(std::get<isa::Conv>(program.instructions[3]), 8), 3);
  for (const SimMode mode : {SimMode::Functional, SimMode::Timed}) {
    SimOptions options;
    const SimResult single = testing::run(program, mode, options);
    ASSERT_FALSE(single.fault) << single.fault->what();
    for (const unsigned threads : {2U, 3U, 8U}) {
      options.datapathThreads = threads;
      const SimResult threaded = testing::run(program, mode, options);
      ASSERT_FALSE(threaded.fault) << threaded.fault->what();
      EXPECT_TRUE(single.ddr == threaded.ddr) << threads << " threads";
      EXPECT_EQ(statsToJson(single.stats, single.fault, {}),
                statsToJson(threaded.stats, threaded.fault, {}));
      EXPECT_EQ(single.endCycles, threaded.endCycles);
    }
  }
}

/// A program with every kind of tile, so every track has spans.
isa::Program programWithEveryTile(std::uint64_t seed) {
  testing::RandomProgramBuilder builder(testing::smallConfig(), seed);
  builder.addConv();
  builder.addEltwise();
  builder.addPool();
  builder.addSplitConv();
  return builder.build();
}

SimResult tracedRun(const isa::Program& program, SimOptions options = {}) {
  options.collectTrace = true;
  return testing::run(program, SimMode::Timed, options);
}

TEST(Engines, TraceFollowsTheTraceEventFormat) {
  const isa::Program program = randomProgram(11, 3);
  const SimResult result = tracedRun(program);
  const auto json = nlohmann::json::parse(traceToJson(result.trace, {}));
  ASSERT_TRUE(json.contains("traceEvents"));
  ASSERT_TRUE(json["traceEvents"].is_array());
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
      ASSERT_TRUE(event["args"]["instruction"].is_number_integer());
    } else {
      ASSERT_TRUE(event["args"]["name"].is_string());
    }
  }
}

/// A trace's complete events grouped by track name, each track sorted by start.
struct TraceSpanEvent {
  std::string name;
  std::uint64_t ts = 0;
  std::uint64_t dur = 0;
  std::size_t instruction = 0;
};
std::map<std::string, std::vector<TraceSpanEvent>> spansByTrack(const nlohmann::json& json,
                                                                std::vector<std::string>& tracks) {
  std::map<std::int64_t, std::string> trackNames;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "thread_name") {
      trackNames[event["tid"].get<std::int64_t>()] = event["args"]["name"];
    }
  }
  for (const auto& [tid, name] : trackNames) {
    tracks.push_back(name);
  }
  std::map<std::string, std::vector<TraceSpanEvent>> spans;
  for (const auto& event : json["traceEvents"]) {
    if (event["ph"] == "X") {
      const auto track = trackNames.find(event["tid"].get<std::int64_t>());
      EXPECT_NE(track, trackNames.end()) << "span on an unnamed track: " << event.dump();
      if (track != trackNames.end()) {
        spans[track->second].push_back(
            {event["name"], event["ts"], event["dur"], event["args"]["instruction"]});
      }
    }
  }
  for (auto& [track, list] : spans) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.ts < b.ts; });
  }
  return spans;
}

TEST(Engines, TraceHasOneTrackPerUnitAndOneSpanPerInstructionOnIt) {
  const isa::Program program = programWithEveryTile(21);
  const SimResult result = tracedRun(program);
  ASSERT_FALSE(result.fault) << result.fault->what();
  std::vector<std::string> tracks;
  const auto spans = spansByTrack(nlohmann::json::parse(traceToJson(result.trace, {})), tracks);
  const std::vector<std::string> units = {"fetch",     "load",   "compute",
                                          "mac_array", "vector", "store"};
  EXPECT_EQ(tracks, units);

  // Each track agrees with its unit's statistics and never runs two spans at once.
  for (const std::string& unit : units) {
    const std::vector<TraceSpanEvent> none;
    const auto it = spans.find(unit);
    const auto& list = it == spans.end() ? none : it->second;
    EXPECT_FALSE(list.empty()) << unit;
    std::uint64_t busy = 0;
    for (std::size_t k = 0; k < list.size(); ++k) {
      busy += list[k].dur;
      if (k > 0) {
        EXPECT_GE(list[k].ts, list[k - 1].ts + list[k - 1].dur)
            << unit << ": instruction " << list[k].instruction << " overlaps instruction "
            << list[k - 1].instruction;
      }
    }
    EXPECT_EQ(list.size(), result.stats.units.at(unit).instructions) << unit;
    EXPECT_EQ(busy, result.stats.units.at(unit).busyCycles) << unit;
  }

  // Fetch dispatches every word once, in program order, before its unit starts it; END is the
  // last fetch span and takes no time.
  const auto& fetch = spans.at("fetch");
  ASSERT_EQ(fetch.size(), program.instructions.size());
  std::map<std::size_t, TraceSpanEvent> executed;  // instruction -> its span on load/compute/store
  for (const char* unit : {"load", "compute", "store"}) {
    for (const TraceSpanEvent& span : spans.at(unit)) {
      EXPECT_TRUE(executed.emplace(span.instruction, span).second)
          << "instruction " << span.instruction << " runs twice";
    }
  }
  for (std::size_t i = 0; i < fetch.size(); ++i) {
    EXPECT_EQ(fetch[i].instruction, i);
    EXPECT_EQ(fetch[i].name, isa::mnemonicOf(program.instructions[i]));
    if (i + 1 == fetch.size()) {
      EXPECT_EQ(fetch[i].name, "END");
      EXPECT_EQ(fetch[i].dur, 0U);
      continue;
    }
    EXPECT_EQ(fetch[i].dur, 1U);
    ASSERT_TRUE(executed.contains(i)) << "instruction " << i << " never ran";
    EXPECT_LE(fetch[i].ts, executed.at(i).ts) << "instruction " << i << " ran before dispatch";
  }
  EXPECT_EQ(executed.size(), program.instructions.size() - 1);

  // The compute track shows every compute instruction; mac_array repeats exactly the CONVs and
  // vector the ELTWISEs and POOLs, with the same timing.
  std::map<std::size_t, TraceSpanEvent> datapath;
  for (const char* unit : {"mac_array", "vector"}) {
    for (const TraceSpanEvent& span : spans.at(unit)) {
      const bool conv = std::holds_alternative<isa::Conv>(program.instructions[span.instruction]);
      EXPECT_EQ(conv, std::string(unit) == "mac_array")
          << span.name << " on " << unit << " (instruction " << span.instruction << ")";
      datapath.emplace(span.instruction, span);
    }
  }
  for (const TraceSpanEvent& span : spans.at("compute")) {
    const isa::Instruction& instruction = program.instructions[span.instruction];
    if (std::holds_alternative<isa::Sync>(instruction)) {
      EXPECT_FALSE(datapath.contains(span.instruction));
      continue;
    }
    ASSERT_TRUE(datapath.contains(span.instruction)) << span.name << " " << span.instruction;
    EXPECT_EQ(datapath.at(span.instruction).ts, span.ts);
    EXPECT_EQ(datapath.at(span.instruction).dur, span.dur);
  }
}

/// A VCD file checked as it is parsed: declarations, then strictly increasing time stamps, each
/// followed by value changes of declared one-bit wires that really change.
struct ParsedVcd {
  std::vector<std::string> wires;             // in declaration order
  std::map<std::string, std::uint64_t> high;  // wire -> cycles it was 1
  std::map<std::string, int> finalValue;
  std::uint64_t lastTime = 0;
};

ParsedVcd parseVcd(const std::string& vcd) {
  ParsedVcd parsed;
  std::map<char, std::string> names;
  std::map<char, int> value;
  std::map<char, std::uint64_t> risen;
  std::istringstream in(vcd);
  std::string line;
  bool body = false;
  bool inDumpvars = false;
  bool sawTime = false;
  std::uint64_t now = 0;
  while (std::getline(in, line)) {
    if (!body) {
      std::istringstream words(line);
      std::string keyword;
      words >> keyword;
      if (keyword == "$var") {
        std::string type;
        std::string width;
        std::string id;
        std::string name;
        std::string end;
        words >> type >> width >> id >> name >> end;
        EXPECT_EQ(type, "wire") << line;
        EXPECT_EQ(width, "1") << line;
        EXPECT_EQ(id.size(), 1U) << line;
        EXPECT_EQ(end, "$end") << line;
        EXPECT_TRUE(names.emplace(id[0], name).second) << "identifier declared twice: " << line;
        parsed.wires.push_back(name);
      } else if (keyword == "$enddefinitions") {
        body = true;
      }
      continue;
    }
    if (line == "$dumpvars") {
      EXPECT_TRUE(sawTime && now == 0) << "$dumpvars must come at #0";
      inDumpvars = true;
    } else if (line == "$end") {
      EXPECT_TRUE(inDumpvars) << "stray $end";
      EXPECT_EQ(value.size(), names.size()) << "$dumpvars must set every wire";
      inDumpvars = false;
    } else if (line.starts_with('#')) {
      const std::uint64_t time = std::stoull(line.substr(1));
      if (sawTime) {
        EXPECT_GT(time, now) << "time stamps must strictly increase: #" << now << " then " << line;
      }
      sawTime = true;
      now = time;
    } else {
      EXPECT_TRUE(sawTime) << "value change before the first time stamp: " << line;
      if (line.size() != 2) {
        ADD_FAILURE() << "bad value change: " << line;
        continue;
      }
      EXPECT_TRUE(line[0] == '0' || line[0] == '1') << line;
      const char id = line[1];
      EXPECT_TRUE(names.contains(id)) << "undeclared identifier: " << line;
      const int bit = line[0] - '0';
      if (value.contains(id)) {
        EXPECT_NE(value[id], bit) << names[id] << " set to " << bit << " again at #" << now;
        if (bit == 0) {
          parsed.high[names[id]] += now - risen[id];
        }
      }
      value[id] = bit;
      risen[id] = now;
    }
  }
  EXPECT_TRUE(body) << "no $enddefinitions";
  EXPECT_FALSE(inDumpvars) << "$dumpvars without $end";
  for (const auto& [id, bit] : value) {
    parsed.finalValue[names[id]] = bit;
  }
  parsed.lastTime = now;
  return parsed;
}

TEST(Engines, VcdHasEveryUnitsBusySignalAndIncreasingTimeStamps) {
  const SimResult result = tracedRun(programWithEveryTile(21));
  ASSERT_FALSE(result.fault) << result.fault->what();
  const ParsedVcd vcd = parseVcd(traceToVcd(result.trace, result.stats.totalCycles));
  EXPECT_EQ(vcd.wires, (std::vector<std::string>{"fetch_busy", "load_busy", "compute_busy",
                                                 "mac_array_busy", "vector_busy", "store_busy"}));
  // The run ends at its last cycle with every unit idle, and each signal is high for exactly
  // its unit's busy cycles.
  EXPECT_EQ(vcd.lastTime, result.stats.totalCycles);
  for (const char* unit : {"fetch", "load", "compute", "mac_array", "vector", "store"}) {
    const std::string wire = std::string(unit) + "_busy";
    EXPECT_EQ(vcd.finalValue.at(wire), 0) << wire;
    EXPECT_EQ(vcd.high.contains(wire) ? vcd.high.at(wire) : 0,
              result.stats.units.at(unit).busyCycles)
        << wire;
  }
}

TEST(Engines, VcdOfHandMadeSpans) {
  // Back-to-back spans merge, a zero-length span leaves no mark, a span may start at cycle 0,
  // and the end of the run is not stamped twice when the last span ends there.
  const std::vector<TraceSpan> trace = {
      {"load", 0, "LOAD", 0, 3},    {"fetch", 0, "LOAD", 2, 3},   {"fetch", 1, "CONV", 3, 4},
      {"fetch", 2, "END", 4, 4},    {"compute", 1, "CONV", 3, 9}, {"mac_array", 1, "CONV", 3, 9},
      {"store", 3, "STORE", 9, 12},
  };
  EXPECT_EQ(traceToVcd(trace, 12),
            "$timescale 1ns $end\n$scope module npu $end\n"
            "$var wire 1 ! fetch_busy $end\n$var wire 1 \" load_busy $end\n"
            "$var wire 1 # compute_busy $end\n$var wire 1 $ mac_array_busy $end\n"
            "$var wire 1 % vector_busy $end\n$var wire 1 & store_busy $end\n"
            "$upscope $end\n$enddefinitions $end\n"
            "#0\n$dumpvars\n0!\n1\"\n0#\n0$\n0%\n0&\n$end\n"
            "#2\n1!\n"
            "#3\n0\"\n1#\n1$\n"
            "#4\n0!\n"
            "#9\n0#\n0$\n1&\n"
            "#12\n0&\n");
  // A run that stops later than its last change (a watchdog) is stamped once more at its end.
  EXPECT_TRUE(traceToVcd(trace, 20).ends_with("#12\n0&\n#20\n"));
  const ParsedVcd parsed = parseVcd(traceToVcd(trace, 12));
  EXPECT_EQ(parsed.high.at("fetch_busy"), 2U);
  EXPECT_EQ(parsed.high.at("store_busy"), 3U);
}

TEST(Engines, VcdOfAStoppedRunIsWellFormed) {
  // A watchdog stop: the trace holds what finished, the VCD ends at the stop cycle.
  const isa::Program program = programWithEveryTile(4);
  const SimResult full = tracedRun(program);
  ASSERT_FALSE(full.fault) << full.fault->what();
  SimOptions options;
  options.maxCycles = full.stats.totalCycles / 2;
  const SimResult stopped = tracedRun(program, options);
  ASSERT_TRUE(stopped.fault);
  EXPECT_EQ(stopped.fault->kind(), FaultKind::Watchdog);
  const ParsedVcd vcd = parseVcd(traceToVcd(stopped.trace, stopped.stats.totalCycles));
  EXPECT_EQ(vcd.lastTime, options.maxCycles);
  EXPECT_EQ(vcd.wires.size(), 6U);
}

TEST(Engines, StatsJsonCarriesTheDocumentedKeys) {
  // A program using every unit, and one using only the compute unit's SYNC.
  for (const isa::Program& program :
       {randomProgram(3, 3), testing::assembleProgram("SYNC unit=1\nEND\n")}) {
    const SimResult result = testing::run(program, SimMode::Timed);
    const auto json = nlohmann::json::parse(statsToJson(result.stats, result.fault, {}));
    for (const char* key :
         {"schema_version", "provenance", "mode", "total_cycles", "macs", "mac_utilization",
          "ddr_bytes_read", "ddr_bytes_written", "units", "opcode_counts", "fault"}) {
      EXPECT_TRUE(json.contains(key)) << key;
    }
    // Every unit, also one the program does not use.
    for (const char* unit : {"fetch", "load", "compute", "mac_array", "vector", "store"}) {
      EXPECT_TRUE(json["units"].contains(unit)) << unit;
    }
  }
}

}  // namespace
}  // namespace npu::sim
