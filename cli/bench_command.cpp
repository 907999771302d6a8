// `npu bench [--suite FILE] [--hw FILE] [--mode timed|functional] [--rtl] [--jobs N]
// [--shard i/n] [--filter REGEX] [--out DIR] [--baseline FILE] [--update-baselines]`: the
// subnetwork benchmark (docs/bench.md). Exit 1 when any subnet fails.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "commands.h"
#include "console.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/run_report.h"
#include "npu/subnet_bench/bench_baseline.h"
#include "npu/subnet_bench/bench_junit.h"
#include "npu/subnet_bench/bench_merge.h"
#include "npu/subnet_bench/bench_plan.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/subnet_bench/bench_runner.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/interrupt.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

struct BenchCliOptions {
  std::string suite;
  std::string hw = "npu-s";
  std::string mode = "timed";
  bool rtl = false;
  std::size_t jobs = 1;
  std::string shard = "1/1";
  std::string filter;
  std::string out = "out/bench";
  std::string baseline;
  bool update = false;
  OutputOptions output;
};

}  // namespace

void writeBaselines(const fs::path& path, const std::string& hardware,
                    const bench::BenchReport& report, std::FILE* out) {
  const std::map<std::string, bench::BaselineEntry> entries = bench::baselineEntries(report);
  // Under a lock, re-read, merged, renamed into place: concurrent shards all keep their entries.
  const bench::Baselines written = bench::updateBaselineFile(path, hardware, entries);
  fmt::print(
      out, "baselines: {} of {} subnets written to {} ({} entries in all){}\n", entries.size(),
      report.results.size(), path.string(), written.subnets.size(),
      entries.size() < report.results.size() ? "; failing subnets keep their old entries" : "");
}

void printSubnetLayers(std::FILE* out, const bench::BenchReport& report) {
  for (const bench::SubnetResult& r : report.results) {
    fmt::print(out, "\n{} ({}):\n{}", r.entry.name, r.entry.location,
               runtime::formatLayerTable(r.job));
  }
}

namespace {

int runBenchCommand(const BenchCliOptions& o) {
  const Console console(o.output, false);
  bench::BenchRequest request;
  request.suite = o.suite;
  request.hw = o.hw;
  request.mode = o.mode;
  request.filter = o.filter;
  request.shard = o.shard;
  request.jobs = o.jobs;
  request.baseline = o.baseline;
  request.rtl = o.rtl;
  request.updatingBaselines = o.update;
  const bench::BenchPlan plan = bench::planBench(request);
  // The inputs are checked; fail now rather than after the run. Until the reports are written
  // the folder holds bench.partial, so a merge refuses the folder of a task killed mid-run.
  const fs::path out(o.out);
  bench::startOutputFolder(
      out, bench::kBenchPartialMarker, {"bench.md", "bench.json", "bench.html", "junit.xml"},
      fmt::format("npu bench --suite {} --hw {}{}", plan.suitePath.string(), plan.hw.name,
                  plan.shard.count > 1 ? " --shard " + bench::shardText(plan.shard) : ""));

  fmt::print(
      console.out(), "npu bench: suite {} ({}), {} of {} subnets{} on {}, {} mode{}, {} job{}\n",
      plan.suite.name, plan.suitePath.string(), plan.selected.size(), plan.suite.subnets.size(),
      plan.shard.count > 1 ? ", shard " + bench::shardText(plan.shard) : "", plan.hw.name, o.mode,
      o.rtl ? " + RTL" : "", plan.options.jobs, plan.options.jobs == 1 ? "" : "s");
  std::fflush(console.out());
  const bench::BenchReport report =
      bench::runPlan(plan, [stream = console.progress()](std::size_t done, std::size_t total,
                                                         const bench::SubnetResult& r) {
        fmt::print(stream, "{}", bench::formatProgressLine(done, total, r));
      });

  fmt::print(console.out(), "\n{}", bench::formatBenchTable(report));
  printSubnetLayers(console.detail(), report);
  if (!report.interruptedBy.empty()) {
    // What finished is reported, marked interrupted; the folder keeps bench.partial (a merge
    // refuses it) and the baselines are left alone: the run did not do what it was asked.
    bench::writeBenchReports(out, report);
    fmt::print(console.out(),
               "reports of the {} finished subnets: {}/bench.md, bench.json, bench.html, "
               "junit.xml{}\n",
               report.results.size(), out.string(), o.update ? "; baselines not updated" : "");
    throwIfInterrupted();
  }
  if (o.update) {
    writeBaselines(plan.baselinePath, plan.hw.name, report, console.out());
  }
  bench::writeBenchReports(out, report);
  bench::finishOutputFolder(out, bench::kBenchPartialMarker);
  fmt::print(console.out(),
             "reports: {0}/bench.md, {0}/bench.json, {0}/bench.html, {0}/junit.xml\n",
             out.string());
  console.printJson(bench::benchJson(report));  // the same document as bench.json
  return report.passed() ? 0 : 1;
}

}  // namespace

void addBenchCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<BenchCliOptions>();
  CLI::App* command = app.add_subcommand(
      "bench", "Run the subnetwork benchmark: verify each subnet, compare cycles with baselines");
  command->add_option("--suite", o->suite,
                      "Suite file (default: subnet_bench/suites/default.yaml)");
  command->add_option("--hw", o->hw, "Hardware config: a name (npu-s, npu-l) or a YAML file");
  command->add_option("--mode", o->mode, "Simulator engine: timed (default) or functional")
      ->check(CLI::IsMember({"timed", "functional"}));
  command->add_flag("--rtl", o->rtl, "Also co-simulate every subnet on the RTL");
  command->add_option("--jobs,-j", o->jobs, "Subnets run in parallel (default 1)")
      ->check(CLI::Range(1, 256));
  command->add_option("--shard", o->shard, "Run shard i of n (1-based), e.g. 2/4");
  command->add_option("--filter", o->filter, "Only subnets whose name matches this regex");
  command->add_option("--out", o->out, "Report directory (default: out/bench)");
  command->add_option("--baseline", o->baseline,
                      "Baseline file (default: <suite's baselines folder>/<hw name>.yaml)");
  command->add_flag("--update-baselines", o->update,
                    "Write the passing subnets' figures into the baseline file");
  addOutputOptions(command, o->output);
  command->callback([&action, o] { action = [o] { return runBenchCommand(*o); }; });
}

}  // namespace npu::cli
