// Text, Markdown, JSON and HTML renderings of a MainJobReport.
#include "npu/runtime/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "npu/support/markup.h"
#include "run_charts.h"

namespace npu::runtime {

namespace {

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string verdict(const MainJobReport& r) {
  if (!r.verified) {
    return fmt::format(
        "NOT VERIFIED: {} inputs ran with --no-golden; the simulator's outputs were compared with "
        "fp32 (and the labels) only, not with the golden reference",
        r.inputs);
  }
  if (r.pass()) {
    return fmt::format("PASS: final DDR bit-exact against golden on {}/{} inputs", r.bitExactInputs,
                       r.inputs);
  }
  return fmt::format("FAIL: bit-exact on {}/{} inputs; first mismatch: {}", r.bitExactInputs,
                     r.inputs, r.firstMismatch.empty() ? "(no input ran)" : r.firstMismatch);
}

/// "3 layers below cosine 0.99: a 0.70312, c 0.98001, b 0.98900": the lowest first (ten of
/// them named); empty when no layer is below the threshold.
std::string lowCosineLine(const MainJobReport& r) {
  std::vector<const LayerRow*> low = r.lowCosineLayers();
  if (low.empty()) {
    return "";
  }
  std::stable_sort(low.begin(), low.end(),
                   [](const LayerRow* a, const LayerRow* b) { return *a->cosine < *b->cosine; });
  std::string line = fmt::format("{} layer{} below cosine {}:", low.size(),
                                 low.size() == 1 ? "" : "s", r.cosineWarn);
  for (std::size_t i = 0; i < low.size() && i < 10; ++i) {
    line += fmt::format("{}{} {:.5f}", i == 0 ? " " : ", ", low[i]->layer, *low[i]->cosine);
  }
  if (low.size() > 10) {
    line += fmt::format(" and {} more", low.size() - 10);
  }
  return line;
}

/// The verdict qualified by the accuracy flags: bit-exactness is the check, but a bit-exact run
/// of a badly quantized layer is not an unqualified success.
std::string qualifiedVerdict(const MainJobReport& r) {
  const std::string low = lowCosineLine(r);
  return low.empty() ? verdict(r) : verdict(r) + "; " + low;
}

/// The HTML class of the verdict: pass (green) only when nothing is flagged.
std::string_view verdictClass(const MainJobReport& r) {
  if (!r.pass()) {
    return "fail";
  }
  return r.lowCosineLayers().empty() ? "pass" : "warn";
}

std::string accuracyLine(const MainJobReport& r) {
  if (!r.classScores) {
    // A detector or segmenter: no class to agree on; how close each output is.
    std::string line = "int8 vs fp32 per output:";
    for (std::size_t o = 0; o < r.outputs.size(); ++o) {
      line += fmt::format("{}'{}' cosine {:.5f}, SQNR {:.1f} dB", o == 0 ? " " : "; ",
                          r.outputs[o].name, r.outputs[o].cosine, r.outputs[o].sqnrDb);
    }
    return line;
  }
  std::string line;
  if (r.fp32Top1 && r.int8Top1) {
    line = fmt::format(
        "top-1 on {} labelled inputs: fp32 {:.2f}%, int8 on the NPU {:.2f}% ({:+.2f} "
        "points); ",
        r.inputs, *r.fp32Top1, *r.int8Top1, *r.int8Top1 - *r.fp32Top1);
  }
  if (r.fp32Top5 && r.int8Top5) {
    line += fmt::format("top-5: fp32 {:.2f}%, int8 on the NPU {:.2f}%; ", *r.fp32Top5, *r.int8Top5);
  }
  return line +
         fmt::format("int8 and fp32 agree on the top class for {:.2f}% of inputs", r.top1Agreement);
}

std::string cyclesLine(const MainJobReport& r) {
  return fmt::format(
      "{} cycles per inference on the NPU ({} MACs, {} MAC utilization, {} DDR bytes); host "
      "segments {} cycles (modelled, {} of them NPU/host borders); {:.1f} inferences/s at {} MHz "
      "end to end",
      r.totalCycles, r.totalMacs, percent(r.macUtilization), r.ddrBytes, r.hostCycles,
      r.borderCycles, r.inferencesPerSecond, r.clockMhz);
}

std::string cosineText(const LayerRow& row) {
  return row.cosine ? fmt::format("{:.5f}", *row.cosine) : std::string("-");
}

/// A fused layer's own cycles are partly its neighbours' (their instructions interleave): its
/// column shows the group's ratio, marked with a '*'.
std::string boundText(const LayerRow& row) {
  if (!row.fusedWith.empty() && row.device == "npu") {
    return fmt::format("{:.2f}x*", row.groupRooflineRatio);
  }
  const std::optional<double> ratio = row.rooflineRatio();
  return ratio ? fmt::format("{:.2f}x", *ratio) : std::string("-");
}

}  // namespace

std::string formatLayerTable(const MainJobReport& r) {
  std::size_t width = 5;
  for (const LayerRow& row : r.layers) {
    width = std::max(width, row.layer.size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<13} {:<4} {:>12} {:>10} {:>10} {:>6} {:>10} {:>7} {:>7} {:>8}\n",
                  "layer", width, "kind", "dev", "MACs", "cycles", "compute", "util", "DDR bytes",
                  "DDR eff", "x bound", "cosine");
  for (const LayerRow& row : r.layers) {
    if (row.device == "host") {
      out +=
          fmt::format("{:<{}}  {:<13} {:<4} {:>12} {:>10} {:>10} {:>6} {:>10} {:>7} {:>7} {:>8}\n",
                      row.layer, width, row.kind, row.device, row.macs,
                      fmt::format("~{}", row.cycles), "-", "-", "-", "-", "-", "-");
    } else {
      out +=
          fmt::format("{:<{}}  {:<13} {:<4} {:>12} {:>10} {:>10} {:>6} {:>10} {:>7} {:>7} {:>8}\n",
                      row.layer, width, row.kind, row.device, row.macs, row.cycles,
                      row.computeCycles, row.macs > 0 ? percent(row.macUtilization) : "-",
                      row.ddrBytes, percent(row.ddrEfficiency), boundText(row), cosineText(row));
    }
  }
  return out;
}

std::string formatRunSummary(const MainJobReport& r) {
  std::string out;
  out += fmt::format(
      "Quantization: {} tensors calibrated on {} ({} samples), activations {}, "
      "weights {}\n\n",
      r.quantizedTensors, r.calibrationSource, r.calibrationSamples, r.activationMethod,
      r.weightQuantization);
  out += fmt::format("Per layer (hw {}, {} mode; cosine = int8 vs fp32 output):\n", r.hardware,
                     r.mode);
  out += formatLayerTable(r);
  // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "\n" + std::string.
  for (const std::string& line : {std::string(), accuracyLine(r), cyclesLine(r), verdict(r)}) {
    out += line;
    out += '\n';
  }
  if (const std::string low = lowCosineLine(r); !low.empty()) {
    out += "WARNING: ";
    out += low;
    out += '\n';
  }
  return out;
}

std::string runReportMarkdown(const MainJobReport& r) {
  std::string out = fmt::format("# npu run: {}\n\n", r.model);
  out += fmt::format("- Hardware: `{}` ({} MACs/cycle, {} DDR bytes/cycle, {} MHz); {} mode\n",
                     r.hardware, r.peakMacsPerCycle, r.ddrBytesPerCycle, r.clockMhz, r.mode);
  out += fmt::format("- **Verdict: {}**\n", qualifiedVerdict(r));
  out += fmt::format("- Cosine warning threshold: {} (accumulated per-layer cosine); {}\n",
                     r.cosineWarn,
                     r.lowCosineLayers().empty() ? "no layer below it" : lowCosineLine(r));
  out += "- " + r.provenance.line(kRunReportSchemaVersion) + "\n";
  out += fmt::format("- Inputs: {}\n", r.dataSource);
  out += fmt::format("- Accuracy: {}\n", accuracyLine(r));
  out += fmt::format("- Cost: {}\n", cyclesLine(r));
  out += fmt::format(
      "- Quantization: {} tensors calibrated on {} ({} samples), activations {}, "
      "weights {}\n\n",
      r.quantizedTensors, r.calibrationSource, r.calibrationSamples, r.activationMethod,
      r.weightQuantization);
  out += "## Partition\n\n```\n" + r.partitionReport + "```\n\n";
  out +=
      "## Layers\n\n*cycles*: from the previous layer's end to this one's (the rows add up to the "
      "total; units overlap across layers); *compute cycles*: the compute unit's busy time on "
      "this layer; *MAC util*: MACs over compute cycles times the array's MACs per cycle; "
      "*roofline bound*: max(MACs / MACs per cycle, DDR bytes / DDR bytes per cycle, vector "
      "elements / vector width), *x bound*: cycles over it; marked `*` for a layer fused with its "
      "neighbours (a cascade, a gated project: their instructions interleave), the ratio of the "
      "whole group (its cycles over its summed bound).\n\n"
      "| layer | kind | device | MACs | cycles | compute cycles | MAC util | DDR bytes | DDR "
      "efficiency | roofline bound (cycles) | x bound | cosine vs fp32 |\n"
      "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const LayerRow& row : r.layers) {
    if (row.device == "host") {
      out += fmt::format("| {} | {} | host | {} | {} (modelled) | - | - | - | - | - | - | - |\n",
                         row.layer, row.kind, row.macs, row.cycles);
    } else {
      const bool low = row.cosine && *row.cosine < r.cosineWarn;
      out += fmt::format("| {} | {} | npu | {} | {} | {} | {} | {} | {} | {:.0f} | {} | {}{} |\n",
                         row.layer, row.kind, row.macs, row.cycles, row.computeCycles,
                         row.macs > 0 ? percent(row.macUtilization) : "-", row.ddrBytes,
                         percent(row.ddrEfficiency), row.rooflineCycles, boundText(row),
                         cosineText(row), low ? " **LOW**" : "");
    }
  }
  return out;
}

nlohmann::ordered_json layerRowJson(const LayerRow& row) {
  nlohmann::ordered_json l;
  l["layer"] = row.layer;
  l["kind"] = row.kind;
  l["device"] = row.device;
  l["segment"] = row.segment;
  l["macs"] = row.macs;
  if (row.device == "host") {
    l["modelled_cycles"] = row.cycles;
  }
  if (row.device == "npu") {
    l["cycles"] = row.cycles;
    l["compute_cycles"] = row.computeCycles;
    l["instructions"] = row.instructions;
    l["mac_utilization"] = row.macUtilization;
    l["ddr_bytes"] = row.ddrBytes;
    l["ddr_efficiency"] = row.ddrEfficiency;
    l["roofline_cycles"] = row.rooflineCycles;
    l["roofline_ratio"] =
        row.rooflineRatio() ? nlohmann::json(*row.rooflineRatio()) : nlohmann::json();
    l["fused_with"] = row.fusedWith.empty() ? nlohmann::json() : nlohmann::json(row.fusedWith);
    l["group_roofline_ratio"] =
        row.fusedWith.empty() ? nlohmann::json() : nlohmann::json(row.groupRooflineRatio);
    l["cosine"] = row.cosine ? nlohmann::json(*row.cosine) : nlohmann::json();
  }
  return l;
}

std::string runReportJson(const MainJobReport& r) {
  nlohmann::ordered_json j;
  j["schema_version"] = kRunReportSchemaVersion;
  j["provenance"] = provenanceJson<nlohmann::ordered_json>(r.provenance);
  j["model"] = r.model;
  j["hardware"] = r.hardware;
  j["mode"] = r.mode;
  j["pass"] = r.pass();
  nlohmann::ordered_json low = nlohmann::ordered_json::array();
  for (const LayerRow* row : r.lowCosineLayers()) {
    low.push_back({{"layer", row->layer}, {"cosine", *row->cosine}});
  }
  j["cosine_warning"] = {
      {"threshold", r.cosineWarn}, {"layers_below", low}, {"summary", qualifiedVerdict(r)}};
  j["inputs"] = r.inputs;
  j["bit_exact_inputs"] = r.bitExactInputs;
  j["verified"] = r.verified;
  j["first_mismatch"] = r.firstMismatch;
  j["data"] = r.dataSource;
  j["calibration"] = {{"source", r.calibrationSource},
                      {"samples", r.calibrationSamples},
                      {"tensors", r.quantizedTensors},
                      {"activations", r.activationMethod},
                      {"weights", r.weightQuantization}};
  j["partition"] = {{"strategy", r.strategy},          {"npu_segments", r.npuSegments},
                    {"host_segments", r.hostSegments}, {"npu_ops", r.npuOps},
                    {"host_ops", r.hostOps},           {"npu_macs", r.npuMacs},
                    {"host_macs", r.hostMacs}};
  j["accuracy"] = {
      {"fp32_top1", r.fp32Top1 ? nlohmann::json(*r.fp32Top1) : nlohmann::json()},
      {"int8_top1", r.int8Top1 ? nlohmann::json(*r.int8Top1) : nlohmann::json()},
      {"fp32_top5", r.fp32Top5 ? nlohmann::json(*r.fp32Top5) : nlohmann::json()},
      {"int8_top5", r.int8Top5 ? nlohmann::json(*r.int8Top5) : nlohmann::json()},
      {"top1_agreement", r.classScores ? nlohmann::json(r.top1Agreement) : nlohmann::json()},
      {"output_cosine", r.outputCosine}};
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (const OutputAccuracy& o : r.outputs) {
    outputs.push_back(
        {{"name", o.name},
         {"cosine", o.cosine},
         {"sqnr_db", std::isfinite(o.sqnrDb) ? nlohmann::json(o.sqnrDb) : nlohmann::json("inf")}});
  }
  j["accuracy"]["outputs"] = outputs;
  j["performance"] = {{"total_cycles", r.totalCycles},
                      {"host_cycles", r.hostCycles},
                      {"border_cycles", r.borderCycles},
                      {"total_macs", r.totalMacs},
                      {"mac_utilization", r.macUtilization},
                      {"ddr_bytes", r.ddrBytes},
                      {"clock_mhz", r.clockMhz},
                      {"inferences_per_second", r.inferencesPerSecond},
                      {"peak_macs_per_cycle", r.peakMacsPerCycle},
                      {"ddr_bytes_per_cycle", r.ddrBytesPerCycle},
                      {"program_bytes", r.programBytes}};
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const LayerRow& row : r.layers) {
    layers.push_back(layerRowJson(row));
  }
  j["layers"] = layers;
  return j.dump(2) + "\n";
}

namespace {

/// Horizontal bars, one per NPU layer: `value(row)` scaled to the largest.
template <typename F>
std::string barChart(const std::vector<const LayerRow*>& rows, const std::string& title, F value,
                     const std::string& unit) {
  std::vector<ChartBar> bars;
  for (const LayerRow* row : rows) {
    const double v = value(*row);
    bars.push_back({row->layer, v, unit == "%" ? fmt::format("{:.1f}%", v) : "", ""});
  }
  return svgBarChart(title, bars);
}

/// Roofline points labelled with the layer's name; past this many, with numbers and a legend.
constexpr std::size_t kNamedRooflinePoints = 12;

/// Log-log roofline: attained MACs/cycle against arithmetic intensity (MACs per DDR byte).
std::string roofline(const std::vector<const LayerRow*>& rows, const MainJobReport& r) {
  const double w = 620;
  const double h = 360;
  const double left = 60;
  const double bottom = 40;
  const double xMin = 0.01;
  const double xMax = 10000.0;
  const double yMin = 0.01;
  const double yMax =
      std::pow(10.0, std::ceil(std::log10(std::max<double>(r.peakMacsPerCycle, 1.0)) + 0.3));
  auto px = [&](double x) {
    return left + (w - left - 20) * (std::log10(x) - std::log10(xMin)) /
                      (std::log10(xMax) - std::log10(xMin));
  };
  auto py = [&](double y) {
    return (h - bottom) - (h - bottom - 20) * (std::log10(y) - std::log10(yMin)) /
                              (std::log10(yMax) - std::log10(yMin));
  };
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' font-size='11' "
      "font-family='sans-serif'>\n<rect x='{}' y='20' width='{}' height='{}' fill='none' "
      "stroke='#999'/>\n",
      w, h, left, w - left - 20, h - bottom - 20);
  for (double x = xMin; x <= xMax * 1.01; x *= 10.0) {
    svg += fmt::format("<text x='{:.1f}' y='{}' text-anchor='middle'>{}</text>\n", px(x),
                       h - bottom + 14, x);
  }
  for (double y = yMin; y <= yMax * 1.01; y *= 10.0) {
    svg += fmt::format("<text x='{}' y='{:.1f}' text-anchor='end'>{}</text>\n", left - 4, py(y) + 4,
                       y);
  }
  svg += fmt::format("<text x='{}' y='{}' text-anchor='middle'>MACs per DDR byte</text>\n",
                     (left + w) / 2, h - 6);
  svg +=
      "<text x='12' y='14'>MACs/cycle (log-log; roof = min(peak, DDR bytes/cycle x "
      "intensity))</text>\n";
  // The roof.
  const double peak = static_cast<double>(r.peakMacsPerCycle);
  const double bw = static_cast<double>(r.ddrBytesPerCycle);
  const double knee = peak / bw;
  const double x0 = std::max(xMin, yMin / bw);
  svg += fmt::format(
      "<polyline fill='none' stroke='#c33' stroke-width='2' points='{:.1f},{:.1f} {:.1f},{:.1f} "
      "{:.1f},{:.1f}'/>\n",
      px(x0), py(x0 * bw), px(knee), py(peak), px(xMax), py(peak));
  std::vector<const LayerRow*> plotted;
  for (const LayerRow* row : rows) {
    if (row->macs > 0 && row->cycles > 0 && row->ddrBytes > 0) {
      plotted.push_back(row);
    }
  }
  // A few points are labelled with their layer's name; more would overlap, so they get numbers
  // and a legend under the chart.
  const bool named = plotted.size() <= kNamedRooflinePoints;
  std::string legend;
  for (std::size_t i = 0; i < plotted.size(); ++i) {
    const LayerRow* row = plotted[i];
    const double intensity =
        std::clamp(static_cast<double>(row->macs) / static_cast<double>(row->ddrBytes), xMin, xMax);
    const double attained =
        std::clamp(static_cast<double>(row->macs) / static_cast<double>(row->cycles), yMin, yMax);
    svg += fmt::format(
        "<circle cx='{:.1f}' cy='{:.1f}' r='4' fill='#4a7ab5'><title>{}: {:.1f} MACs/cycle at "
        "{:.2f} MACs/byte</title></circle>\n<text x='{:.1f}' y='{:.1f}' font-size='10'>{}</text>\n",
        px(intensity), py(attained), escapeMarkup(row->layer), attained, intensity,
        px(intensity) + 5, py(attained) - 5,
        named ? escapeMarkup(row->layer) : std::to_string(i + 1));
    if (!named) {
      legend += fmt::format("{}<b>{}</b> {}", i == 0 ? "" : " &middot; ", i + 1,
                            escapeMarkup(row->layer));
    }
  }
  svg += "</svg>\n";
  if (!legend.empty()) {
    svg += "<p style='font-size:11px'>" + legend + "</p>\n";
  }
  return svg;
}

}  // namespace

std::string runReportHtml(const MainJobReport& r) {
  std::vector<const LayerRow*> npuRows;
  for (const LayerRow& row : r.layers) {
    if (row.device == "npu") {
      npuRows.push_back(&row);
    }
  }
  std::string html = htmlReportHead(
      "npu run report",
      "pre{background:#f4f4f4;padding:8px;font-size:12px}.warn{color:#b35900;font-weight:bold}"
      "tr.low td{background:#fde0dc}");
  html += fmt::format("<h1>npu run: {}</h1>\n", escapeMarkup(r.model));
  html += fmt::format("<p class='{}'>{}</p>\n", verdictClass(r), escapeMarkup(qualifiedVerdict(r)));
  html += fmt::format(
      "<p>Cosine warning threshold {} (accumulated per-layer cosine, int8 vs fp32): {}</p>\n",
      r.cosineWarn,
      r.lowCosineLayers().empty()
          ? std::string("no layer below it")
          : fmt::format("<span class='warn'>{}</span>", escapeMarkup(lowCosineLine(r))));
  html += fmt::format(
      "<p>Hardware <b>{}</b> ({} MACs/cycle, {} DDR bytes/cycle, {} MHz), {} "
      "mode.<br>{}<br>{}</p>\n",
      escapeMarkup(r.hardware), r.peakMacsPerCycle, r.ddrBytesPerCycle, r.clockMhz, r.mode,
      escapeMarkup(accuracyLine(r)), escapeMarkup(cyclesLine(r)));
  html += "<h2>Cycles per layer</h2>\n" +
          barChart(
              npuRows, "cycles", [](const LayerRow& l) { return double(l.cycles); }, "");
  html += "<h2>MAC utilization per layer</h2>\n" +
          barChart(
              npuRows, "MAC utilization",
              [](const LayerRow& l) { return 100.0 * l.macUtilization; }, "%");
  html += "<h2>Roofline</h2>\n" + roofline(npuRows, r);
  if (const std::string accuracy = accuracySvg(r); !accuracy.empty()) {
    html += "<h2>Accuracy per layer</h2>\n" + accuracy;
  }
  if (const std::string timeline = timelineSvg(r); !timeline.empty()) {
    html += "<h2>Timeline of the first input</h2>\n" + timeline;
  }
  html +=
      "<h2>Layers</h2>\n<table><tr><th>layer</th><th>kind</th><th>device</th><th>MACs</th>"
      "<th>cycles</th><th>compute cycles</th><th>MAC util</th><th>DDR bytes</th><th>DDR "
      "efficiency</th><th>roofline "
      "bound</th><th>x bound</th><th>cosine</th></tr>\n";
  for (const LayerRow& row : r.layers) {
    const bool npu = row.device == "npu";
    const bool low = npu && row.cosine && *row.cosine < r.cosineWarn;
    html += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}"
        "</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        low ? " class='low'" : "", escapeMarkup(row.layer), escapeMarkup(row.kind), row.device,
        row.macs, npu ? std::to_string(row.cycles) : "-",
        npu ? std::to_string(row.computeCycles) : "-",
        npu && row.macs > 0 ? percent(row.macUtilization) : "-",
        npu ? std::to_string(row.ddrBytes) : "-", npu ? percent(row.ddrEfficiency) : "-",
        npu ? fmt::format("{:.0f}", row.rooflineCycles) : "-", npu ? boundText(row) : "-",
        npu ? cosineText(row) + (low ? " (low)" : "") : "-");
  }
  html += "</table>\n<h2>Partition</h2>\n<pre>" + escapeMarkup(r.partitionReport) + "</pre>\n";
  html += htmlProvenanceLine(r.provenance, kRunReportSchemaVersion);
  html += "</body></html>\n";
  return html;
}

}  // namespace npu::runtime
