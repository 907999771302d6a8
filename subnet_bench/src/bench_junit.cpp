// JUnit XML of a BenchReport.
#include "npu/subnet_bench/bench_junit.h"

#include <fmt/format.h>

#include "npu/subnet_bench/bench_report.h"
#include "npu/support/markup.h"

namespace npu::bench {

std::string benchJunitXml(const BenchReport& report) {
  const bool sharded = !report.merged() && report.shard.count > 1;
  const std::string suiteName = fmt::format("subnet_bench.{}.{}{}", report.suite, report.hardware,
                                            sharded ? " shard " + shardText(report.shard) : "");
  // Each missing shard of a partial merge is an error of its own, so CI cannot miss it.
  // An interrupted run is one error too: the subnets it did not reach were never checked.
  const std::size_t incomplete =
      report.missingShards.size() + (report.interruptedBy.empty() ? 0 : 1);
  const std::size_t errors = report.errors() + incomplete;
  const std::size_t failures = report.failed() - report.errors();
  const std::size_t tests = report.results.size() + incomplete;
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"npu bench\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      tests, failures, errors, report.seconds);
  xml += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\">\n",
      escapeMarkup(suiteName), tests, failures, errors, report.seconds);
  xml += "    <properties>\n";
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"suite_file", report.suitePath.string()},
        {"hardware", report.hardware},
        {"mode", report.mode},
        {"rtl", report.rtl ? "true" : "false"},
        {"shard", report.merged() ? std::string("merged") : shardText(report.shard)},
        {"filter", report.filter},
        {"baselines", report.baselinePath.string()},
        {"update_baselines", report.updatingBaselines ? "true" : "false"},
        {"tool_version", report.toolVersion},
        {"schema_version", std::to_string(kBenchSchemaVersion)}}) {
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, escapeMarkup(value));
  }
  for (const auto& [key, value] : report.provenance.fields()) {
    xml += fmt::format("      <property name=\"provenance.{}\" value=\"{}\"/>\n", key,
                       escapeMarkup(value));
  }
  xml += "    </properties>\n";
  for (const SubnetResult& r : report.results) {
    xml += fmt::format("    <testcase classname=\"subnet_bench.{}\" name=\"{}\" time=\"{:.3f}\">\n",
                       escapeMarkup(report.suite), escapeMarkup(r.entry.name), r.seconds);
    if (!r.error.empty()) {
      xml += fmt::format("      <error message=\"{}\" type=\"error\">{}</error>\n",
                         escapeMarkup(r.error), escapeMarkup(r.entry.location + ": " + r.error));
    } else if (!r.passed()) {
      std::string text = r.entry.location + ":";
      for (const std::string& reason : r.failures) {
        text += "\n" + reason;
      }
      // The type is the first reason's kind: "bit mismatch", "accuracy", "cycles" or "RTL".
      const std::string& first = r.failures.front();
      xml += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                         escapeMarkup(first), escapeMarkup(first.substr(0, first.find(':'))),
                         escapeMarkup(text));
    }
    xml += fmt::format("      <system-out>{}</system-out>\n", escapeMarkup(resultFigures(r)));
    xml += "    </testcase>\n";
  }
  for (const Shard& shard : report.missingShards) {
    xml += fmt::format(
        "    <testcase classname=\"subnet_bench.{}\" name=\"missing shard {}\" time=\"0.000\">\n"
        "      <error message=\"shard {} missing: its subnets did not run\" type=\"missing "
        "shard\">{}</error>\n    </testcase>\n",
        escapeMarkup(report.suite), shardText(shard), shardText(shard),
        escapeMarkup(missingShardsText(report)));
  }
  if (!report.interruptedBy.empty()) {
    xml += fmt::format(
        "    <testcase classname=\"subnet_bench.{}\" name=\"interrupted\" time=\"0.000\">\n"
        "      <error message=\"{}\" type=\"interrupted\"/>\n    </testcase>\n",
        escapeMarkup(report.suite), escapeMarkup(missingShardsText(report)));
  }
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace npu::bench
