// The run trace: the timeline's spans named by layer, on one track per unit, and the host's.
#include "npu/runtime/run_trace.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "npu/simulator/simulate.h"
#include "npu/support/provenance.h"

namespace npu::runtime {
namespace {

constexpr std::array<std::string_view, 6> kUnitTracks = {"fetch",     "load",   "compute",
                                                         "mac_array", "vector", "store"};
constexpr int kHostTrack = 1;

/// Thread id of a unit's track (2, 3, ...); units not listed share the last id plus one.
int unitTrack(std::string_view unit) {
  int id = kHostTrack + 1;
  for (const std::string_view track : kUnitTracks) {
    if (track == unit) {
      return id;
    }
    ++id;
  }
  return id;
}

}  // namespace

std::string runTraceJson(const MainJobReport& report) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", 0},
                    {"args", {{"name", "npu run: " + report.model + " (1 us = 1 cycle)"}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", 1},
                    {"tid", kHostTrack},
                    {"args", {{"name", "host"}}}});
  for (const std::string_view track : kUnitTracks) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 1},
                      {"tid", unitTrack(track)},
                      {"args", {{"name", track}}}});
  }
  for (const TimelineSegment& slot : report.timeline) {
    if (slot.device == "host") {
      std::uint64_t at = slot.start;
      auto slice = [&](const std::string& name, std::uint64_t cycles, std::string_view what) {
        events.push_back({{"name", name},
                          {"cat", "host"},
                          {"ph", "X"},
                          {"pid", 1},
                          {"tid", kHostTrack},
                          {"ts", at},
                          {"dur", cycles},
                          {"args", {{"segment", slot.segment}, {"cost", what}}}});
        at += cycles;
      };
      for (const auto& [name, cycles] : slot.hostNodes) {
        slice(name, cycles, "modelled");
      }
      if (slot.borderCycles > 0) {
        slice("NPU/host border", slot.borderCycles, "modelled");
      }
      continue;
    }
    for (const sim::TraceSpan& span : slot.spans) {
      const std::int64_t layer = span.instruction < slot.instructionLayer.size()
                                     ? slot.instructionLayer[span.instruction]
                                     : -1;
      events.push_back(
          {{"name", layer >= 0 ? slot.layerNames.at(static_cast<std::size_t>(layer)) : "END"},
           {"cat", span.unit},
           {"ph", "X"},
           {"pid", 1},
           {"tid", unitTrack(span.unit)},
           {"ts", slot.start + span.start},
           {"dur", span.end - span.start},
           {"args",
            {{"segment", slot.segment},
             {"instruction", span.instruction},
             {"opcode", span.name}}}});
    }
  }
  // The format's metadata object carries what every output of ours records (docs/architecture.md).
  const nlohmann::json otherData = {
      {"schema_version", sim::kTraceSchemaVersion},
      {"provenance", provenanceJson<nlohmann::json>(report.provenance)}};
  return nlohmann::json{
             {"traceEvents", events}, {"displayTimeUnit", "ns"}, {"otherData", otherData}}
             .dump() +
         "\n";
}

}  // namespace npu::runtime
