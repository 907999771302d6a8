// Stats JSON, Chrome/Perfetto trace JSON and VCD writers.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>

#include "npu/simulator/simulate.h"

namespace npu::sim {
namespace {

// One track per unit, in a fixed order so traces from different runs line up: fetch, the three
// executing units, the compute unit's two datapaths right below it, and store. The compute track
// shows every compute instruction (SYNC too); mac_array repeats its CONVs and vector its
// ELTWISEs, POOLs and NORMs, with the same start and end.
constexpr std::array<std::string_view, 6> kTracks = {"fetch",     "load",   "compute",
                                                     "mac_array", "vector", "store"};

/// Index of a unit's track; kTracks.size() for a name that is not a unit.
std::size_t trackIndex(std::string_view unit) {
  return static_cast<std::size_t>(std::find(kTracks.begin(), kTracks.end(), unit) -
                                  kTracks.begin());
}

/// Thread id of a unit's track (0 is left to the process).
int trackId(std::string_view unit) {
  return static_cast<int>(trackIndex(unit)) + 1;
}

}  // namespace

std::string statsToJson(const SimStats& stats, const std::optional<SimFault>& fault,
                        const Provenance& provenance) {
  nlohmann::ordered_json json;
  json["schema_version"] = kStatsSchemaVersion;
  json["provenance"] = provenanceJson<nlohmann::ordered_json>(provenance);
  json["mode"] = stats.mode;
  json["total_cycles"] = stats.totalCycles;
  json["macs"] = stats.macs;
  json["mac_utilization"] = stats.macUtilization;
  json["ddr_bytes_read"] = stats.ddrBytesRead;
  json["ddr_bytes_written"] = stats.ddrBytesWritten;
  json["ddr_burst_bytes"] = stats.ddrBurstBytes;
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

std::string traceToJson(const std::vector<TraceSpan>& trace, const Provenance& provenance) {
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
  const nlohmann::json otherData = {{"schema_version", kTraceSchemaVersion},
                                    {"provenance", provenanceJson<nlohmann::json>(provenance)}};
  return nlohmann::json{
             {"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", otherData}}
             .dump() +
         "\n";
}

std::string traceToVcd(const std::vector<TraceSpan>& trace, std::uint64_t totalCycles) {
  // One busy wire per track, identifiers '!', '"', '#', ...
  std::string out = "$timescale 1ns $end\n$scope module npu $end\n";
  for (std::size_t t = 0; t < kTracks.size(); ++t) {
    out += fmt::format("$var wire 1 {} {}_busy $end\n", static_cast<char>('!' + t), kTracks[t]);
  }
  out += "$upscope $end\n$enddefinitions $end\n";

  // time -> track -> spans starting minus spans ending; back-to-back spans cancel out.
  std::map<std::uint64_t, std::map<std::size_t, int>> changes;
  for (const TraceSpan& span : trace) {
    const std::size_t track = trackIndex(span.unit);
    if (span.end > span.start && track < kTracks.size()) {
      changes[span.start][track] += 1;
      changes[span.end][track] -= 1;
    }
  }
  std::array<int, kTracks.size()> level{};
  // Initial values, with whatever starts at cycle 0 already applied.
  if (const auto first = changes.find(0); first != changes.end()) {
    for (const auto& [track, delta] : first->second) {
      level[track] += delta;
    }
    changes.erase(first);
  }
  out += "#0\n$dumpvars\n";
  for (std::size_t t = 0; t < kTracks.size(); ++t) {
    out += fmt::format("{}{}\n", level[t] > 0 ? 1 : 0, static_cast<char>('!' + t));
  }
  out += "$end\n";
  std::uint64_t last = 0;
  for (const auto& [time, deltas] : changes) {
    std::string values;
    for (const auto& [track, delta] : deltas) {
      const bool before = level[track] > 0;
      level[track] += delta;
      if (before != (level[track] > 0)) {
        values += fmt::format("{}{}\n", level[track] > 0 ? 1 : 0, static_cast<char>('!' + track));
      }
    }
    if (!values.empty()) {
      out += fmt::format("#{}\n{}", time, values);
      last = time;
    }
  }
  // Mark the end of the run unless the last change already did.
  if (totalCycles > last) {
    out += fmt::format("#{}\n", totalCycles);
  }
  return out;
}

}  // namespace npu::sim
