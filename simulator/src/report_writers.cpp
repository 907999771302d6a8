// Stats JSON, Chrome/Perfetto trace JSON and VCD writers.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "npu/simulator/simulate.h"

namespace npu::sim {
namespace {

// Fixed track order so traces from different runs line up.
constexpr std::array<std::string_view, 4> kTracks = {"fetch", "load", "compute", "store"};

int trackId(std::string_view unit) {
  const auto it = std::find(kTracks.begin(), kTracks.end(), unit);
  return static_cast<int>(it - kTracks.begin()) + 1;
}

}  // namespace

std::string statsToJson(const SimStats& stats, const std::optional<SimFault>& fault) {
  nlohmann::ordered_json json;
  json["mode"] = stats.mode;
  json["total_cycles"] = stats.totalCycles;
  json["macs"] = stats.macs;
  json["mac_utilization"] = stats.macUtilization;
  json["ddr_bytes_read"] = stats.ddrBytesRead;
  json["ddr_bytes_written"] = stats.ddrBytesWritten;
  nlohmann::ordered_json units = nlohmann::ordered_json::object();
  for (const auto& [name, unit] : stats.units) {
    units[name] = {{"instructions", unit.instructions},
                   {"busy_cycles", unit.busyCycles},
                   {"stall_cycles", unit.stallCycles}};
  }
  json["units"] = units;
  json["opcode_counts"] = stats.opcodeCounts;
  if (fault) {
    json["fault"] = {{"kind", faultKindName(fault->kind())},
                     {"instruction", fault->instruction()},
                     {"message", fault->what()}};
  } else {
    json["fault"] = nullptr;
  }
  return json.dump(2) + "\n";
}

std::string traceToJson(const std::vector<TraceSpan>& trace) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 0},
                    {"args", {{"name", "npu (1 us = 1 cycle)"}}}});
  for (const std::string_view track : kTracks) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", trackId(track)},
                      {"args", {{"name", track}}}});
  }
  for (const TraceSpan& span : trace) {
    events.push_back({{"name", span.name},
                      {"cat", span.unit},
                      {"ph", "X"},
                      {"pid", 1},
                      {"tid", trackId(span.unit)},
                      {"ts", span.start},
                      {"dur", span.end - span.start},
                      {"args", {{"instruction", span.instruction}}}});
  }
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

std::string traceToVcd(const std::vector<TraceSpan>& trace, std::uint64_t totalCycles) {
  std::string out =
      "$timescale 1ns $end\n$scope module npu $end\n"
      "$var wire 1 ! load_busy $end\n$var wire 1 \" compute_busy $end\n"
      "$var wire 1 # store_busy $end\n$upscope $end\n$enddefinitions $end\n";
  const std::map<std::string, char> ids = {{"load", '!'}, {"compute", '"'}, {"store", '#'}};
  std::map<std::uint64_t, std::map<char, int>> changes;  // time -> id -> +1 / -1
  for (const TraceSpan& span : trace) {
    const auto it = ids.find(span.unit);
    if (it == ids.end() || span.end == span.start) {
      continue;
    }
    changes[span.start][it->second] += 1;
    changes[span.end][it->second] -= 1;
  }
  std::map<char, int> level = {{'!', 0}, {'"', 0}, {'#', 0}};
  out += "#0\n0!\n0\"\n0#\n";
  for (const auto& [time, deltas] : changes) {
    out += fmt::format("#{}\n", time);
    for (const auto& [id, delta] : deltas) {
      const int before = level[id];
      level[id] += delta;
      if ((before > 0) != (level[id] > 0)) {
        out += fmt::format("{}{}\n", level[id] > 0 ? 1 : 0, id);
      }
    }
  }
  out += fmt::format("#{}\n", totalCycles);
  return out;
}

}  // namespace npu::sim
