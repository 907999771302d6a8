// JUnit XML of a BenchReport.
#include "npu/subnet_bench/bench_junit.h"

#include <fmt/format.h>

#include "npu/subnet_bench/bench_report.h"
#include "npu/support/markup.h"

namespace npu::bench {

std::string benchJunitXml(const BenchReport& report) {
  const std::string suiteName =
      fmt::format("subnet_bench.{}.{}{}", report.suite, report.hardware,
                  report.shard.count > 1 ? " shard " + shardText(report.shard) : "");
  const std::size_t errors = report.errors();
  const std::size_t failures = report.failed() - errors;
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += fmt::format(
      "<testsuites name=\"npu bench\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "time=\"{:.3f}\">\n",
      report.results.size(), failures, errors, report.seconds);
  xml += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" "
      "time=\"{:.3f}\">\n",
      escapeMarkup(suiteName), report.results.size(), failures, errors, report.seconds);
  xml += "    <properties>\n";
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"suite_file", report.suitePath.string()},
        {"hardware", report.hardware},
        {"mode", report.mode},
        {"rtl", report.rtl ? "true" : "false"},
        {"shard", shardText(report.shard)},
        {"filter", report.filter},
        {"baselines", report.baselinePath.string()}}) {
    xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, escapeMarkup(value));
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
  xml += "  </testsuite>\n</testsuites>\n";
  return xml;
}

}  // namespace npu::bench
