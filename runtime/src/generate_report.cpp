// The reports of `npu generate` (generate.h): markdown, JSON and HTML, and the console summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string_view>

#include "npu/runtime/generate.h"
#include "npu/support/markup.h"

namespace npu::runtime {

namespace {

std::string_view kindName(GenerateStep::Kind kind) {
  switch (kind) {
    case GenerateStep::Kind::Prompt:
      return "prompt";
    case GenerateStep::Kind::Prefill:
      return "prefill";
    case GenerateStep::Kind::Decode:
      return "decode";
  }
  return "?";
}

/// The step's DDR roofline (the bytes it must read over the DDR port) over its cycles, NPU and
/// modelled host together.
double rooflineShare(const GenerateReport& r, const GenerateStep& step) {
  const auto cycles = static_cast<double>(step.npuCycles + step.hostCycles);
  return cycles > 0.0 ? static_cast<double>(step.rooflineBytes) / r.ddrBytesPerCycle / cycles : 0.0;
}

/// Figures over the decode steps.
struct DecodeFigures {
  std::size_t steps = 0;
  double npuCycles = 0.0;
  double hostCycles = 0.0;
  double ddrBytes = 0.0;
  double rooflineBytes = 0.0;
  double meanCosine = 0.0;
  double minCosine = 1.0;
  std::size_t agreeing = 0;
};

DecodeFigures decodeFigures(const GenerateReport& r) {
  DecodeFigures f;
  for (const GenerateStep* s : r.decodeSteps()) {
    f.steps += 1;
    f.npuCycles += static_cast<double>(s->npuCycles);
    f.hostCycles += static_cast<double>(s->hostCycles);
    f.ddrBytes += static_cast<double>(s->ddrBytesRead + s->ddrBytesWritten);
    f.rooflineBytes += static_cast<double>(s->rooflineBytes);
  }
  for (const GenerateStep& s : r.steps) {
    f.meanCosine += s.logitCosine / static_cast<double>(r.steps.size());
    f.minCosine = std::min(f.minCosine, s.logitCosine);
    f.agreeing += s.fp32Agrees ? 1 : 0;
  }
  if (f.steps > 0) {
    const auto n = static_cast<double>(f.steps);
    f.npuCycles /= n;
    f.hostCycles /= n;
    f.ddrBytes /= n;
    f.rooflineBytes /= n;
  }
  return f;
}

std::string verificationLine(const GenerateReport& r) {
  if (!r.bitExact()) {
    const auto bad = std::find_if(r.steps.begin(), r.steps.end(),
                                  [](const GenerateStep& s) { return !s.bitExact; });
    return fmt::format("FAIL: step {} ({}, position {}) differs from golden: {}",
                       bad - r.steps.begin(), kindName(bad->kind), bad->position,
                       bad->firstMismatch);
  }
  return fmt::format("PASS: all {} runs bit-exact against golden (whole DDR, cache included)",
                     r.steps.size());
}

std::vector<std::string> summaryLines(const GenerateReport& r) {
  const DecodeFigures f = decodeFigures(r);
  std::vector<std::string> lines;
  lines.push_back(fmt::format("prompt ({} tokens): {}", r.prompt.size(), fmt::join(r.prompt, " ")));
  lines.push_back(fmt::format("generated ({} tokens, {}): {}", r.generated.size(), r.sampling,
                              fmt::join(r.generated, " ")));
  lines.push_back(verificationLine(r));
  lines.push_back(fmt::format(
      "time to first token: {} cycles ({:.3f} ms at {} MHz){}", r.timeToFirstTokenCycles,
      static_cast<double>(r.timeToFirstTokenCycles) / (r.clockMhz * 1e3), r.clockMhz,
      r.prefillModel.empty() ? ", prompt fed one token a step" : ", prefill"));
  if (f.steps == 0) {
    lines.emplace_back("decode: no decode step (one new token comes from the prompt's logits)");
  } else {
    lines.push_back(fmt::format(
        "decode: {} steps, {:.0f} cycles per token (NPU {:.0f} + host {:.0f} modelled): {:.1f} "
        "tokens/s at {} MHz",
        f.steps, f.npuCycles + f.hostCycles, f.npuCycles, f.hostCycles, r.tokensPerSecond(),
        r.clockMhz));
    lines.push_back(fmt::format(
        "memory roofline: a token must read {:.0f} bytes (weights {} + valid cache), {:.0f} "
        "cycles at {} bytes/cycle; the step takes {:.0f}: {:.1f}% of the roofline (NPU DDR "
        "traffic {:.0f} bytes per token)",
        f.rooflineBytes, r.weightBytes, f.rooflineBytes / r.ddrBytesPerCycle, r.ddrBytesPerCycle,
        f.npuCycles + f.hostCycles,
        100.0 * f.rooflineBytes / r.ddrBytesPerCycle / (f.npuCycles + f.hostCycles), f.ddrBytes));
  }
  lines.push_back(fmt::format(
      "logits vs fp32 (teacher-forced on the same tokens): mean cosine {:.5f}, min {:.5f}; "
      "next token agrees on {} of {} runs",
      f.meanCosine, f.minCosine, f.agreeing, r.steps.size()));
  lines.push_back(fmt::format(
      "decode step partition: {} NPU segment{}, {} host segment{} ({} NPU ops, {} host ops)",
      r.npuSegments, r.npuSegments == 1 ? "" : "s", r.hostSegments, r.hostSegments == 1 ? "" : "s",
      r.npuOps, r.hostOps));
  for (const SegmentCosim& s : r.rtl) {
    lines.push_back(fmt::format("RTL, first decode step, NPU segment {}: {}, cycle delta {}{}",
                                s.segment, s.matches() ? "identical" : "DIFFERENT",
                                s.report.cycleDelta(),
                                s.goldenEqual ? "" : " (final DDR differs from golden)"));
  }
  return lines;
}

/// The report's list: the graphs, hardware and calibration, then the summary.
std::vector<std::string> reportLines(const GenerateReport& r) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("prefill: {}", r.prefillModel.empty() ? "none" : r.prefillModel));
  lines.push_back(
      fmt::format("hardware: {}, {} mode, {} MHz, {} DDR bytes/cycle; maximum context {}",
                  r.hardware, r.mode, r.clockMhz, r.ddrBytesPerCycle, r.maxContext));
  lines.push_back(fmt::format("calibration: {}", r.calibrationSource));
  for (std::string& line : summaryLines(r)) {
    lines.push_back(std::move(line));
  }
  return lines;
}

/// The columns of the runs table, and one run's cells.
constexpr std::array<std::string_view, 14> kStepColumns = {
    "#",          "kind",         "position",    "token in",    "next",
    "NPU cycles", "host cycles",  "DDR read",    "DDR written", "must read",
    "roofline",   "logit cosine", "fp32 agrees", "bit-exact"};

std::vector<std::string> stepCells(const GenerateReport& r, std::size_t i) {
  const GenerateStep& s = r.steps[i];
  return {std::to_string(i),
          std::string(kindName(s.kind)),
          std::to_string(s.position),
          s.token < 0 ? "-" : std::to_string(s.token),
          s.next < 0 ? "-" : std::to_string(s.next),
          std::to_string(s.npuCycles),
          std::to_string(s.hostCycles),
          std::to_string(s.ddrBytesRead),
          std::to_string(s.ddrBytesWritten),
          std::to_string(s.rooflineBytes),
          fmt::format("{:.1f}%", 100.0 * rooflineShare(r, s)),
          fmt::format("{:.5f}", s.logitCosine),
          s.fp32Agrees ? "yes" : "no",
          s.bitExact ? "yes" : "NO"};
}

}  // namespace

std::string formatGenerateSummary(const GenerateReport& r) {
  return fmt::format("{}\n", fmt::join(summaryLines(r), "\n"));
}

std::string generateReportMarkdown(const GenerateReport& r) {
  std::string md = fmt::format("# npu generate: {}\n\n", r.decodeModel);
  for (const std::string& line : reportLines(r)) {
    md += fmt::format("- {}\n", line);
  }
  md += fmt::format("\n## Runs\n\n| {} |\n|", fmt::join(kStepColumns, " | "));
  for (std::size_t c = 0; c < kStepColumns.size(); ++c) {
    md += c < 2 ? "---|" : "---:|";
  }
  md += "\n";
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    md += fmt::format("| {} |\n", fmt::join(stepCells(r, i), " | "));
  }
  md += "\n" + markdownProvenanceLine(r.provenance, kGenerateReportSchemaVersion);
  return md;
}

std::string generateReportJson(const GenerateReport& r) {
  const DecodeFigures f = decodeFigures(r);
  nlohmann::ordered_json j;
  j["schema_version"] = kGenerateReportSchemaVersion;
  j["provenance"] = provenanceJson<nlohmann::ordered_json>(r.provenance);
  j["decode_model"] = r.decodeModel;
  j["prefill_model"] = r.prefillModel;
  j["hardware"] = r.hardware;
  j["mode"] = r.mode;
  j["clock_mhz"] = r.clockMhz;
  j["ddr_bytes_per_cycle"] = r.ddrBytesPerCycle;
  j["max_context"] = r.maxContext;
  j["sampling"] = r.sampling;
  j["calibration"] = r.calibrationSource;
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  for (const KvPair& p : r.kvPairs) {
    pairs.push_back({{"past", p.past}, {"present", p.present}});
  }
  j["kv_pairs"] = pairs;
  j["pass"] = r.pass();
  j["bit_exact"] = r.bitExact();
  j["prompt"] = r.prompt;
  j["generated"] = r.generated;
  j["time_to_first_token_cycles"] = r.timeToFirstTokenCycles;
  j["decode"] = {{"steps", f.steps},
                 {"cycles_per_token", f.npuCycles + f.hostCycles},
                 {"npu_cycles_per_token", f.npuCycles},
                 {"host_cycles_per_token", f.hostCycles},
                 {"tokens_per_second", r.tokensPerSecond()},
                 {"ddr_bytes_per_token", f.ddrBytes},
                 {"roofline_bytes_per_token", f.rooflineBytes},
                 {"weight_bytes", r.weightBytes}};
  j["logits"] = {{"mean_cosine", f.meanCosine},
                 {"min_cosine", f.minCosine},
                 {"fp32_agreeing_runs", f.agreeing}};
  j["partition"] = {{"npu_segments", r.npuSegments},
                    {"host_segments", r.hostSegments},
                    {"npu_ops", r.npuOps},
                    {"host_ops", r.hostOps}};
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const GenerateStep& s : r.steps) {
    steps.push_back({{"kind", kindName(s.kind)},
                     {"position", s.position},
                     {"token", s.token},
                     {"next", s.next},
                     {"npu_cycles", s.npuCycles},
                     {"host_cycles", s.hostCycles},
                     {"ddr_bytes_read", s.ddrBytesRead},
                     {"ddr_bytes_written", s.ddrBytesWritten},
                     {"roofline_bytes", s.rooflineBytes},
                     {"logit_cosine", s.logitCosine},
                     {"fp32_agrees", s.fp32Agrees},
                     {"bit_exact", s.bitExact},
                     {"first_mismatch", s.firstMismatch}});
  }
  j["steps"] = steps;
  nlohmann::ordered_json rtl = nlohmann::ordered_json::array();
  for (const SegmentCosim& s : r.rtl) {
    rtl.push_back({{"npu_segment", s.segment},
                   {"matches", s.matches()},
                   {"cycle_delta", s.report.cycleDelta()},
                   {"golden_equal", s.goldenEqual}});
  }
  j["rtl"] = rtl;
  j["loop_seconds"] = r.loopSeconds;
  return j.dump(2) + "\n";
}

namespace {

/// Cycles per run (NPU, and NPU + modelled host) against the position, as an inline SVG chart.
std::string cyclesSvg(const GenerateReport& r) {
  if (r.steps.empty()) {
    return {};
  }
  const double width = 720;
  const double height = 240;
  const double left = 70;
  const double bottom = 30;
  double top = 1.0;
  for (const GenerateStep& s : r.steps) {
    top = std::max(top, static_cast<double>(s.npuCycles + s.hostCycles));
  }
  const double lastPosition =
      static_cast<double>(std::max<std::size_t>(r.steps.back().position, 1));
  const auto x = [&](std::size_t position) {
    return left + (width - left - 10) * static_cast<double>(position) / lastPosition;
  };
  const auto y = [&](double cycles) {
    return height - bottom - (height - bottom - 10) * cycles / top;
  };
  std::string npu;
  std::string total;
  for (const GenerateStep& s : r.steps) {
    npu += fmt::format("{:.1f},{:.1f} ", x(s.position), y(static_cast<double>(s.npuCycles)));
    total += fmt::format("{:.1f},{:.1f} ", x(s.position),
                         y(static_cast<double>(s.npuCycles + s.hostCycles)));
  }
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{0}' height='{1}'>"
      "<line x1='{2}' y1='{3}' x2='{0}' y2='{3}' stroke='#444'/>"
      "<line x1='{2}' y1='10' x2='{2}' y2='{3}' stroke='#444'/>"
      "<text x='4' y='16' font-size='11'>{4:.0f}</text>"
      "<text x='4' y='{3}' font-size='11'>0</text>"
      "<text x='{2}' y='{5}' font-size='11'>position 0</text>"
      "<text x='{6}' y='{5}' font-size='11' text-anchor='end'>{7}</text>",
      width, height, left, height - bottom, top, height - 8, width - 10, r.steps.back().position);
  svg +=
      fmt::format("<polyline fill='none' stroke='#bd9e39' stroke-width='2' points='{}'/>", total);
  svg += fmt::format("<polyline fill='none' stroke='#3366cc' stroke-width='2' points='{}'/>", npu);
  svg += fmt::format(
      "<text x='{0}' y='24' font-size='11' fill='#3366cc'>NPU cycles</text>"
      "<text x='{0}' y='38' font-size='11' fill='#bd9e39'>NPU + host (modelled)</text></svg>\n",
      left + 10);
  return svg;
}

}  // namespace

std::string generateReportHtml(const GenerateReport& r) {
  std::string html = htmlReportHead("npu generate report", "td.bad{background:#fde0dc}");
  html += fmt::format("<h1>npu generate: {}</h1>\n<ul>\n", escapeMarkup(r.decodeModel));
  for (const std::string& line : reportLines(r)) {
    html += fmt::format("<li>{}</li>\n", escapeMarkup(line));
  }
  html += "</ul>\n<h2>Cycles per run, by position</h2>\n" + cyclesSvg(r);
  html += fmt::format("<h2>Runs</h2>\n<table><tr><th>{}</th></tr>\n",
                      fmt::join(kStepColumns, "</th><th>"));
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    html += fmt::format("<tr{}><td>{}</td></tr>\n", r.steps[i].bitExact ? "" : " class='bad'",
                        fmt::join(stepCells(r, i), "</td><td>"));
  }
  html += "</table>\n" + htmlProvenanceLine(r.provenance, kGenerateReportSchemaVersion);
  html += "</body></html>\n";
  return html;
}

}  // namespace npu::runtime
