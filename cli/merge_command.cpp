// `npu merge DIR... --out DIR [--allow-partial] [--update-baselines] [--baseline FILE]`: the
// output folders of the shards of one `npu bench` or `npu opcheck` run merged into the reports
// one run of the whole suite or sweep writes (docs/bench.md, "Farms"). Exit 1 when anything
// failed or a shard is missing.
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "console.h"
#include "npu/subnet_bench/bench_merge.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/subnet_bench/op_report.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string out;
  bool allowPartial = false;
  bool update = false;
  std::string baseline;
  OutputOptions output;
};

enum class OutputKind : std::uint8_t { Bench, Opcheck };

const char* kindName(OutputKind kind) {
  return kind == OutputKind::Bench ? "an `npu bench` output" : "an `npu opcheck` report";
}

/// What a shard folder holds, or one error line saying why it is none.
OutputKind classify(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fail("{}: no such folder", dir.string());
  }
  if (!fs::is_directory(dir, ec)) {
    fail("{}: not a folder (give each shard's output folder)", dir.string());
  }
  auto has = [&](std::string_view name) { return fs::exists(dir / name, ec); };
  if (has("bench.json") || has(bench::kBenchPartialMarker)) {
    return OutputKind::Bench;
  }
  if (has("opcheck.json") || has(bench::kOpcheckPartialMarker)) {
    return OutputKind::Opcheck;
  }
  if (fs::is_empty(dir, ec)) {
    fail("{}: empty folder (its task wrote nothing: it never started, or wrote elsewhere)",
         dir.string());
  }
  fail(
      "{}: holds neither bench.json nor opcheck.json (not an `npu bench` or `npu opcheck "
      "--report` output folder)",
      dir.string());
}

int mergeBench(const MergeOptions& o, const Console& console, const std::vector<fs::path>& dirs) {
  std::vector<bench::BenchReport> shards;
  std::vector<std::string> sources;
  for (const fs::path& dir : dirs) {
    shards.push_back(bench::readBenchOutput(dir));
    sources.push_back(dir.string());
  }
  bench::BenchReport report = bench::mergeBenchReports(shards, sources, o.allowPartial);
  if (o.update && !report.updatingBaselines) {
    // As one `npu bench --update-baselines` run judges: cycle regressions are accepted.
    report.updatingBaselines = true;
    for (bench::SubnetResult& r : report.results) {
      bench::judge(r, true);
    }
  }
  const fs::path out(o.out);
  createDirectories(out);
  fmt::print(console.out(), "{}", bench::formatBenchTable(report));
  printSubnetLayers(console.detail(), report);
  if (o.update) {
    writeBaselines(o.baseline.empty() ? report.baselinePath : fs::path(o.baseline), report.hardware,
                   report, console.out());
  }
  bench::writeBenchReports(out, report);
  fmt::print(console.out(),
             "merged {0} shard{2}; reports: {1}/bench.md, {1}/bench.json, {1}/bench.html, "
             "{1}/junit.xml\n",
             report.shardRuns.size(), out.string(), report.shardRuns.size() == 1 ? "" : "s");
  console.printJson(bench::benchJson(report));  // the same document as the merged bench.json
  return report.passed() ? 0 : 1;
}

int mergeOpcheck(const MergeOptions& o, const Console& console, const std::vector<fs::path>& dirs) {
  if (o.update || !o.baseline.empty()) {
    fail(ErrorKind::Usage, "merge: --update-baselines and --baseline are for `npu bench` outputs");
  }
  const std::string json = bench::mergeOpcheckOutputs(dirs, o.allowPartial);
  const fs::path out(o.out);
  createDirectories(out);
  bench::writeOpcheckReports(out, json);
  fmt::print(console.out(), "{0}\nreports: {1}/opcheck.md, {1}/opcheck.json, {1}/junit.xml\n",
             bench::opcheckSummaryLine(json), out.string());
  console.printJson(json);  // the same document as the merged opcheck.json
  return bench::opcheckPassed(json) ? 0 : 1;
}

int runMerge(const MergeOptions& o) {
  const Console console(o.output, false);
  std::vector<fs::path> dirs;
  std::vector<OutputKind> kinds;
  std::error_code ec;
  for (const std::string& input : o.inputs) {
    dirs.emplace_back(input);
    kinds.push_back(classify(dirs.back()));
    if (kinds.back() != kinds.front()) {
      fail("{}: {}, but {} is {} (merge one kind at a time)", input, kindName(kinds.back()),
           o.inputs.front(), kindName(kinds.front()));
    }
    if (fs::equivalent(dirs.back(), o.out, ec)) {
      fail("{}: is also the --out folder; write the merged reports elsewhere", input);
    }
  }
  return kinds.front() == OutputKind::Bench ? mergeBench(o, console, dirs)
                                            : mergeOpcheck(o, console, dirs);
}

}  // namespace

void addMergeCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* command = app.add_subcommand(
      "merge",
      "Merge the output folders of a sharded `npu bench` or `npu opcheck --report` run into one "
      "report");
  command->add_option("DIR", o->inputs, "Each shard's output folder")->required();
  command->add_option("--out", o->out, "Folder for the merged reports")->required();
  command->add_flag("--allow-partial", o->allowPartial,
                    "Merge although shards are missing (the report names them; exit 1)");
  command->add_flag("--update-baselines", o->update,
                    "bench: write the passing subnets' figures into the baseline file, once");
  command->add_option("--baseline", o->baseline,
                      "bench: the baseline file to update (default: the one the shards used)");
  addOutputOptions(command, o->output);
  command->callback([&action, o] { action = [o] { return runMerge(*o); }; });
}

}  // namespace npu::cli
