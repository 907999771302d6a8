// The main job's report: the terminal text, report.md, report.json and a self-contained
// report.html with plots (per-layer cycles and utilization, a roofline of every layer).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "npu/runtime/main_job.h"

namespace npu::runtime {

/// The schema version of report.json (its "schema_version"), raised when a key changes meaning or
/// goes away; the Markdown and HTML reports state it in their provenance line.
inline constexpr int kRunReportSchemaVersion = 1;

/// The per-layer table as fixed-width text (also the body of the Markdown table).
std::string formatLayerTable(const MainJobReport& report);

/// Everything `npu run` prints after the partition summary: quantization summary, per-layer
/// table, verdict, accuracy, cycles and inferences/s.
std::string formatRunSummary(const MainJobReport& report);

/// One per-layer row as report.json writes it (bench.json uses the same).
nlohmann::ordered_json layerRowJson(const LayerRow& row);

std::string runReportMarkdown(const MainJobReport& report);
std::string runReportJson(const MainJobReport& report);
/// One HTML file, no external resources: inline SVG charts.
std::string runReportHtml(const MainJobReport& report);

}  // namespace npu::runtime
