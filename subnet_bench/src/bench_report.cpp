// Text, Markdown, JSON and HTML renderings of a BenchReport.
#include "npu/subnet_bench/bench_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "npu/runtime/run_report.h"
#include "npu/subnet_bench/bench_junit.h"
#include "npu/support/file_io.h"
#include "npu/support/markup.h"

namespace npu::bench {
namespace {

/// 988698 -> "988,698".
std::string grouped(std::uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return out;
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

/// "+1.25%", or "-" without a baseline.
std::string changeText(const SubnetResult& r) {
  if (!r.error.empty() || r.cycleCheck.verdict == CycleVerdict::NoBaseline) {
    return "-";
  }
  return fmt::format("{:+.2f}%", 100.0 * r.cycleCheck.change);
}

/// "within", "improvement", "REGRESSION", "no baseline".
std::string verdictText(const SubnetResult& r) {
  if (!r.error.empty()) {
    return "-";
  }
  if (r.cycleCheck.verdict == CycleVerdict::Regression) {
    return "REGRESSION";
  }
  return std::string(cycleVerdictName(r.cycleCheck.verdict));
}

std::string rtlText(const SubnetResult& r) {
  if (!r.rtl) {
    return "-";
  }
  return r.rtl->matches ? fmt::format("same (delta {})", r.rtl->cycleDelta) : "DIFFERENT";
}

std::string baselineText(const SubnetResult& r) {
  return r.cycleCheck.verdict == CycleVerdict::NoBaseline ? "-" : grouped(r.cycleCheck.baseline);
}

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

/// ", shard 2/4" for a shard, ", merged from 4 shards" for a merge, "" for a whole run.
std::string shardLabel(const BenchReport& report) {
  if (report.merged()) {
    if (report.missingShards.empty()) {
      return ", merged from " + plural(report.shardRuns.size(), "shard");
    }
    return fmt::format(", merged from {} of {} shards, PARTIAL", report.shardRuns.size(),
                       report.shardRuns.front().shard.count);
  }
  return report.shard.count > 1 ? ", shard " + shardText(report.shard) : "";
}

/// "PASS", "FAIL", "INTERRUPTED" or "INCOMPLETE" (nothing failed, but shards are missing).
std::string verdictWord(const BenchReport& report) {
  if (report.passed()) {
    return "PASS";
  }
  if (report.failed() > 0) {
    return "FAIL";
  }
  return report.interruptedBy.empty() ? "INCOMPLETE" : "INTERRUPTED";
}

/// "1/4, 2/4 (1.2 s from a/), ..." of a merged report, for the shard line.
std::string shardRunsText(const BenchReport& report) {
  double seconds = 0.0;
  for (const ShardRun& run : report.shardRuns) {
    seconds += run.seconds;
  }
  return fmt::format("merged from {} of {} (shards {} to {}), {:.1f} s of task time",
                     plural(report.shardRuns.size(), "shard"), report.shardRuns.front().shard.count,
                     shardText(report.shardRuns.front().shard),
                     shardText(report.shardRuns.back().shard), seconds);
}

}  // namespace

std::string missingShardsText(const BenchReport& report) {
  if (!report.interruptedBy.empty()) {
    return fmt::format("INTERRUPTED by {}: {} of {} subnets were not run", report.interruptedBy,
                       report.notRun(), report.filtered);
  }
  if (report.missingShards.empty()) {
    return "";
  }
  return fmt::format("PARTIAL: {} missing; {} of {} subnets were not run",
                     shardListText(report.missingShards), report.notRun(), report.filtered);
}

std::string statusText(const SubnetResult& r) {
  if (!r.error.empty()) {
    return "ERROR";
  }
  return r.passed() ? "PASS" : "FAIL";
}

std::string resultFigures(const SubnetResult& r) {
  if (!r.error.empty()) {
    return "error: " + r.error;
  }
  std::string baseline = "no baseline";
  if (r.cycleCheck.verdict != CycleVerdict::NoBaseline) {
    baseline = fmt::format("baseline {}, {:+.2f}%, {}; tolerance {:.2f}%",
                           grouped(r.cycleCheck.baseline), 100.0 * r.cycleCheck.change,
                           cycleVerdictName(r.cycleCheck.verdict), 100.0 * r.entry.cycleTolerance);
  }
  std::string text = fmt::format(
      "{} cycles ({}), {} MACs, MAC utilization {}, output cosine vs fp32 {:.5f} (min {}), {}",
      grouped(r.job.totalCycles), baseline, grouped(r.job.totalMacs), percent(r.job.macUtilization),
      r.job.outputCosine, r.entry.minCosine,
      r.bitExact() ? "bit-exact against golden" : "NOT bit-exact");
  if (r.rtl) {
    text +=
        fmt::format(", RTL {} ({} cycles, delta {})", r.rtl->matches ? "identical" : "DIFFERENT",
                    grouped(r.rtl->cycles), r.rtl->cycleDelta);
  }
  return text;
}

std::string formatProgressLine(std::size_t done, std::size_t total, const SubnetResult& r) {
  const int width = static_cast<int>(std::to_string(total).size());
  std::string line =
      fmt::format("[{:>{}}/{}] {:<5} {:<28}", done, width, total, statusText(r), r.entry.name);
  if (!r.error.empty()) {
    return line + " " + r.error + "\n";
  }
  line += fmt::format(" {:>11} cycles {:>8}  util {:>6}  cos {:.5f}  {:.1f} s",
                      grouped(r.job.totalCycles), changeText(r), percent(r.job.macUtilization),
                      r.job.outputCosine, r.seconds);
  for (const std::string& reason : r.failures) {
    line += "\n      " + reason;
  }
  return line + "\n";
}

std::string benchSummaryLine(const BenchReport& report) {
  return fmt::format(
      "bench {} on {} ({}{}{}): {} subnets, {} passed, {} failed ({} errors); cycles vs "
      "baseline: {} regressions, {} improvements, {} within tolerance; {:.1f} s",
      report.suite, report.hardware, report.mode, report.rtl ? ", RTL" : "", shardLabel(report),
      report.results.size(), report.results.size() - report.failed(), report.failed(),
      report.errors(), report.count(CycleVerdict::Regression),
      report.count(CycleVerdict::Improvement), report.count(CycleVerdict::Within), report.seconds);
}

std::string formatBenchTable(const BenchReport& report) {
  std::size_t width = 6;
  for (const SubnetResult& r : report.results) {
    width = std::max(width, r.entry.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:<6} {:>12} {:>12} {:>8} {:<11} {:>6} {:>8} {:>7} {:<9}",
                                "subnet", width, "result", "cycles", "baseline", "change",
                                "vs baseline", "util", "cosine", "min", "bit-exact");
  out += report.rtl ? fmt::format(" {:<16}", "RTL") : "";
  out += "    time\n";
  for (const SubnetResult& r : report.results) {
    if (!r.error.empty()) {
      out += fmt::format("{:<{}}  {:<6} {}\n", r.entry.name, width, "ERROR", r.error);
      continue;
    }
    out +=
        fmt::format("{:<{}}  {:<6} {:>12} {:>12} {:>8} {:<11} {:>6} {:>8.5f} {:>7} {:<9}",
                    r.entry.name, width, statusText(r), grouped(r.job.totalCycles), baselineText(r),
                    changeText(r), verdictText(r), percent(r.job.macUtilization),
                    r.job.outputCosine, r.entry.minCosine, r.bitExact() ? "yes" : "NO");
    out += report.rtl ? fmt::format(" {:<16}", rtlText(r)) : "";
    out += fmt::format(" {:>5.1f} s\n", r.seconds);
  }
  for (const SubnetResult& r : report.results) {
    for (const std::string& reason : r.failures) {
      out += fmt::format("{} {}: {}\n", statusText(r), r.entry.name, reason);
    }
  }
  if (!missingShardsText(report).empty()) {
    out += missingShardsText(report) + "\n";
  }
  return out + benchSummaryLine(report) + "\n";
}

std::string benchMarkdown(const BenchReport& report) {
  std::string out = fmt::format("# npu bench: {}\n\n", report.suite);
  if (!missingShardsText(report).empty()) {
    out += fmt::format("> **{}**\n\n", missingShardsText(report));
  }
  out += fmt::format("- **{}**\n", verdictWord(report));
  out += fmt::format("- {}\n", benchSummaryLine(report));
  out +=
      fmt::format("- Suite: `{}`; baselines: `{}`{}\n", report.suitePath.string(),
                  report.baselinePath.string(), report.updatingBaselines ? " (updating them)" : "");
  if (!report.filter.empty()) {
    out += fmt::format("- Filter: `{}`\n", report.filter);
  }
  out += "- " + report.provenance.line(kBenchSchemaVersion) + "\n";
  if (report.merged()) {
    out += fmt::format("- Shards: {}\n", shardRunsText(report));
  }
  out +=
      "- A subnet fails on any bit mismatch against golden, an output cosine vs fp32 below its "
      "minimum, or more cycles than its baseline plus the tolerance.\n\n";
  out += fmt::format(
      "| subnet | result | cycles | baseline | change | vs baseline | MAC util | MACs | cosine "
      "| min cosine | bit-exact |{} time (s) |\n|---|---|---:|---:|---:|---|---:|---:|---:|---:|"
      "---|{}---:|\n",
      report.rtl ? " RTL |" : "", report.rtl ? "---|" : "");
  for (const SubnetResult& r : report.results) {
    if (!r.error.empty()) {
      out += fmt::format("| {} | ERROR | - | - | - | - | - | - | - | {} | - |{} {:.1f} |\n",
                         r.entry.name, r.entry.minCosine, report.rtl ? " - |" : "", r.seconds);
      continue;
    }
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.5f} | {} | {} |{} {:.1f} |\n",
                       r.entry.name, statusText(r), grouped(r.job.totalCycles), baselineText(r),
                       changeText(r), verdictText(r), percent(r.job.macUtilization),
                       grouped(r.job.totalMacs), r.job.outputCosine, r.entry.minCosine,
                       r.bitExact() ? "yes" : "**NO**",
                       report.rtl ? fmt::format(" {} |", rtlText(r)) : "", r.seconds);
  }
  if (report.failed() > 0) {
    out += "\n## Failures\n\n";
    for (const SubnetResult& r : report.results) {
      for (const std::string& reason : r.failures) {
        out += fmt::format("- `{}` ({}): {}\n", r.entry.name, r.entry.location, reason);
      }
    }
  }
  if (report.count(CycleVerdict::Improvement) > 0) {
    out += "\n## Improvements\n\n";
    for (const SubnetResult& r : report.results) {
      if (r.error.empty() && r.cycleCheck.verdict == CycleVerdict::Improvement) {
        out += fmt::format("- `{}`: {} cycles, baseline {} ({:+.2f}%)\n", r.entry.name,
                           grouped(r.job.totalCycles), grouped(r.cycleCheck.baseline),
                           100.0 * r.cycleCheck.change);
      }
    }
    out += "\nAccept them with `npu bench --update-baselines` (docs/bench.md).\n";
  }
  return out;
}

std::string benchJson(const BenchReport& report) {
  nlohmann::ordered_json j;
  j["schema_version"] = kBenchSchemaVersion;
  j["provenance"] = provenanceJson<nlohmann::ordered_json>(report.provenance);
  j["tool_version"] = report.toolVersion;
  j["suite"] = report.suite;
  j["suite_file"] = report.suitePath.string();
  j["suite_digest"] = report.suiteDigest;
  j["hardware"] = report.hardware;
  j["mode"] = report.mode;
  j["rtl"] = report.rtl;
  j["shard"] = report.merged() ? std::string("merged") : shardText(report.shard);
  if (report.merged()) {
    nlohmann::ordered_json shards = nlohmann::ordered_json::array();
    for (const ShardRun& run : report.shardRuns) {
      shards.push_back(
          {{"shard", shardText(run.shard)}, {"from", run.source}, {"seconds", run.seconds}});
    }
    j["shards"] = shards;
  }
  nlohmann::ordered_json missing = nlohmann::ordered_json::array();
  for (const Shard& shard : report.missingShards) {
    missing.push_back(shardText(shard));
  }
  j["missing_shards"] = missing;
  j["interrupted"] = report.interruptedBy;
  j["filter"] = report.filter;
  j["filtered_subnets"] = report.filtered;
  j["baselines"] = report.baselinePath.string();
  j["update_baselines"] = report.updatingBaselines;
  j["pass"] = report.passed();
  j["seconds"] = report.seconds;
  j["summary"] = {{"subnets", report.results.size()},
                  {"passed", report.results.size() - report.failed()},
                  {"failed", report.failed()},
                  {"errors", report.errors()},
                  {"not_run", report.notRun()},
                  {"regressions", report.count(CycleVerdict::Regression)},
                  {"improvements", report.count(CycleVerdict::Improvement)},
                  {"within_tolerance", report.count(CycleVerdict::Within)}};
  nlohmann::ordered_json subnets = nlohmann::ordered_json::array();
  for (const SubnetResult& r : report.results) {
    nlohmann::ordered_json s;
    s["name"] = r.entry.name;
    s["index"] = r.suiteIndex;
    s["location"] = r.entry.location;
    s["graph"] = r.entry.graph.string();
    s["pass"] = r.passed();
    s["failures"] = r.failures;
    s["error"] = r.error;
    s["seconds"] = r.seconds;
    s["min_cosine"] = r.entry.minCosine;
    s["cycle_tolerance"] = r.entry.cycleTolerance;
    if (r.error.empty()) {
      s["bit_exact"] = r.bitExact();
      s["first_mismatch"] = r.job.firstMismatch;
      s["cosine"] = r.job.outputCosine;
      s["baseline_cosine"] =
          r.baselineCosine ? nlohmann::json(*r.baselineCosine) : nlohmann::json();
      s["cycles"] = r.job.totalCycles;
      const bool compared = r.cycleCheck.verdict != CycleVerdict::NoBaseline;
      s["baseline_cycles"] = compared ? nlohmann::json(r.cycleCheck.baseline) : nlohmann::json();
      s["cycle_change"] = compared ? nlohmann::json(r.cycleCheck.change) : nlohmann::json();
      s["cycle_verdict"] = cycleVerdictName(r.cycleCheck.verdict);
      s["macs"] = r.job.totalMacs;
      s["mac_utilization"] = r.job.macUtilization;
      s["ddr_bytes"] = r.job.ddrBytes;
      s["npu_ops"] = r.job.npuOps;
      s["host_ops"] = r.job.hostOps;
      if (r.rtl) {
        s["rtl"] = {{"matches", r.rtl->matches},
                    {"cycles", r.rtl->cycles},
                    {"cycle_delta", r.rtl->cycleDelta},
                    {"detail", r.rtl->detail}};
      }
      nlohmann::ordered_json layers = nlohmann::ordered_json::array();
      for (const runtime::LayerRow& row : r.job.layers) {
        layers.push_back(runtime::layerRowJson(row));
      }
      s["layers"] = layers;
    }
    subnets.push_back(s);
  }
  j["subnets"] = subnets;
  return j.dump(2) + "\n";
}

std::string benchHtml(const BenchReport& report) {
  std::string html =
      htmlReportHead("npu bench: " + report.suite, "details{margin:4px 0}summary{cursor:pointer}");
  html += fmt::format("<h1>npu bench: {}</h1>\n", escapeMarkup(report.suite));
  if (!missingShardsText(report).empty()) {
    html += fmt::format("<h2 class='fail'>{}</h2>\n", escapeMarkup(missingShardsText(report)));
  }
  html += fmt::format("<p class='{}'>{}</p>\n<p>{}</p>\n", report.passed() ? "pass" : "fail",
                      verdictWord(report), escapeMarkup(benchSummaryLine(report)));
  html += fmt::format(
      "<p>Suite <code>{}</code>, baselines <code>{}</code>{}{}.</p>\n",
      escapeMarkup(report.suitePath.string()), escapeMarkup(report.baselinePath.string()),
      report.updatingBaselines ? " (updating them)" : "",
      report.filter.empty() ? "" : ", filter <code>" + escapeMarkup(report.filter) + "</code>");
  if (report.merged()) {
    html += fmt::format("<p>Shards: {}.</p>\n", escapeMarkup(shardRunsText(report)));
  }

  std::vector<ChartBar> cycles;
  std::vector<ChartBar> utilization;
  std::vector<ChartBar> change;
  for (const SubnetResult& r : report.results) {
    if (!r.error.empty()) {
      continue;
    }
    cycles.push_back(
        {r.entry.name, static_cast<double>(r.job.totalCycles), grouped(r.job.totalCycles), ""});
    utilization.push_back(
        {r.entry.name, 100.0 * r.job.macUtilization, percent(r.job.macUtilization), ""});
    if (r.cycleCheck.verdict != CycleVerdict::NoBaseline) {
      const char* color = r.cycleCheck.verdict == CycleVerdict::Regression    ? "#c33"
                          : r.cycleCheck.verdict == CycleVerdict::Improvement ? "#393"
                                                                              : "#999";
      change.push_back({r.entry.name, 100.0 * r.cycleCheck.change, changeText(r), color});
    }
  }
  html += "<h2>Cycles per subnet</h2>\n" + svgBarChart("NPU cycles per inference", cycles);
  html += "<h2>MAC utilization per subnet</h2>\n" + svgBarChart("MAC utilization", utilization);
  html += "<h2>Cycles vs baseline</h2>\n";
  html += change.empty() ? std::string("<p>No baseline to compare with.</p>\n")
                         : svgBarChart(
                               "cycle change vs baseline (red: regression past the "
                               "tolerance, green: improvement past it)",
                               change);

  html += fmt::format(
      "<h2>Subnets</h2>\n<table><tr><th>subnet</th><th>result</th><th>cycles</th><th>baseline"
      "</th><th>change</th><th>vs baseline</th><th>MAC util</th><th>MACs</th><th>cosine</th>"
      "<th>min cosine</th><th>bit-exact</th>{}<th>time (s)</th></tr>\n",
      report.rtl ? "<th>RTL</th>" : "");
  for (const SubnetResult& r : report.results) {
    const std::string cls = r.passed() ? "pass" : "fail";
    if (!r.error.empty()) {
      html += fmt::format(
          "<tr><td>{}</td><td class='fail'>ERROR</td><td colspan='{}'>{}</td><td>{:.1f}</td>"
          "</tr>\n",
          escapeMarkup(r.entry.name), report.rtl ? 10 : 9, escapeMarkup(r.error), r.seconds);
      continue;
    }
    html += fmt::format(
        "<tr><td>{}</td><td class='{}'>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{:.5f}</td><td>{}</td><td>{}</td>{}<td>{:.1f}</td></tr>\n",
        escapeMarkup(r.entry.name), cls, statusText(r), grouped(r.job.totalCycles), baselineText(r),
        changeText(r), verdictText(r), percent(r.job.macUtilization), grouped(r.job.totalMacs),
        r.job.outputCosine, r.entry.minCosine, r.bitExact() ? "yes" : "NO",
        report.rtl ? "<td>" + escapeMarkup(rtlText(r)) + "</td>" : "", r.seconds);
  }
  html += "</table>\n";
  if (report.failed() > 0) {
    html += "<h2>Failures</h2>\n<ul>\n";
    for (const SubnetResult& r : report.results) {
      for (const std::string& reason : r.failures) {
        html += fmt::format("<li><b>{}</b> ({}): {}</li>\n", escapeMarkup(r.entry.name),
                            escapeMarkup(r.entry.location), escapeMarkup(reason));
      }
    }
    html += "</ul>\n";
  }

  html += "<h2>Layers</h2>\n";
  for (const SubnetResult& r : report.results) {
    if (!r.error.empty()) {
      continue;
    }
    html += fmt::format(
        "<details><summary>{} ({} layers)</summary>\n<table><tr><th>layer</th><th>kind</th>"
        "<th>device</th><th>MACs</th><th>cycles</th><th>MAC util</th><th>DDR bytes</th>"
        "<th>cosine</th></tr>\n",
        escapeMarkup(r.entry.name), r.job.layers.size());
    for (const runtime::LayerRow& row : r.job.layers) {
      const bool npu = row.device == "npu";
      html += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td></tr>\n",
          escapeMarkup(row.layer), escapeMarkup(row.kind), escapeMarkup(row.device),
          grouped(row.macs), npu ? grouped(row.cycles) : "-",
          npu && row.macs > 0 ? percent(row.macUtilization) : "-",
          npu ? grouped(row.ddrBytes) : "-",
          npu && row.cosine ? fmt::format("{:.5f}", *row.cosine) : "-");
    }
    html += "</table></details>\n";
  }
  return html + htmlProvenanceLine(report.provenance, kBenchSchemaVersion) + "</body></html>\n";
}

void writeBenchReports(const std::filesystem::path& dir, const BenchReport& report) {
  writeTextFile(dir / "bench.md", benchMarkdown(report));
  writeTextFile(dir / "bench.html", benchHtml(report));
  writeTextFile(dir / "junit.xml", benchJunitXml(report));
  writeTextFile(dir / "bench.json", benchJson(report));
}

}  // namespace npu::bench
