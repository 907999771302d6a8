// `npu opcheck OP [--count N] [--seed S] [--shard i/n] [--hw FILE] [--mode functional|timed]
// [--rtl] [--inject-bug NAME] [--out DIR] [--report DIR]` sweeps random one-op cases against
// golden; `npu opcheck --repro FILE` replays one. Exit 1 on any failure.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "console.h"
#include "npu/compiler/target/npu_op.h"
#include "npu/isa/npu_config.h"
#include "npu/subnet_bench/bench_merge.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/op_report.h"
#include "npu/subnet_bench/op_sweep.h"
#include "npu/subnet_bench/repro.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"

namespace npu::cli {
namespace {

struct OpcheckOptions {
  std::string op;
  std::uint64_t count = 100;
  std::uint64_t seed = 1;
  std::string shard = "1/1";
  std::string report;
  std::string hw = "npu-s";
  std::string mode = "functional";
  bool rtl = false;
  std::string repro;
  std::string bug = "none";
  std::string out = "opcheck-repros";
  std::uint64_t maxRepros = 10;
  bool noFieldLimits = false;
  OutputOptions output;
  // Which options the user gave (a replay keeps the file's values otherwise).
  bool hwGiven = false;
  bool modeGiven = false;
  bool bugGiven = false;
};

bench::InjectedBug parseBugOption(const std::string& name) {
  const auto bug = bench::parseBug(name);
  if (!bug) {
    fail(ErrorKind::Usage, "opcheck: unknown injected bug '{}' (one of {})", name,
         bench::bugNames());
  }
  return *bug;
}

runtime::Engine engineOf(const OpcheckOptions& o) {
  if (o.rtl) {
    return runtime::Engine::Rtl;
  }
  return *runtime::parseEngine(o.mode);  // CLI11 admits functional and timed
}

int replay(const OpcheckOptions& o, const Console& console) {
  bench::Repro repro = bench::readRepro(o.repro);
  if (o.hwGiven) {
    repro.hw = o.hw;
  }
  if (o.modeGiven) {
    repro.engine = engineOf(o);
  }
  if (o.bugGiven) {
    repro.bug = parseBugOption(o.bug);
  }
  bench::CheckOptions check;
  check.hw = isa::loadNpuConfig(isa::resolveConfigPath(
      repro.hw, o.hwGiven ? std::filesystem::current_path()
                          : std::filesystem::absolute(o.repro).parent_path()));
  check.engine = repro.engine;
  check.bug = repro.bug;
  const bench::CaseResult result = bench::checkCase(repro.opCase, check);
  const std::string context =
      fmt::format("{} ({}, {}{})", bench::describeCase(repro.opCase), check.hw.name,
                  runtime::engineName(check.engine),
                  check.bug == bench::InjectedBug::None
                      ? ""
                      : ", injected bug " + std::string(bench::bugName(check.bug)));
  nlohmann::ordered_json summary =
      summaryJson("opcheck --repro", reportProvenance(isa::toYaml(check.hw)));
  summary["repro"] = o.repro;
  summary["case"] = context;
  int status = 0;
  switch (result.verdict) {
    case bench::Verdict::Pass:
      fmt::print(console.out(), "{}: PASS: {}\n", o.repro, context);
      summary["verdict"] = "pass";
      break;
    case bench::Verdict::Unsupported:
      fmt::print(console.out(), "{}: UNSUPPORTED: {}\n  {}\n", o.repro, context, result.message);
      summary["verdict"] = "unsupported";
      break;
    case bench::Verdict::Fail:
      fmt::print(console.out(), "{}: FAIL ({}): {}\n  {}\n", o.repro, result.kind, context,
                 result.message);
      summary["verdict"] = "fail";
      summary["failure"] = result.kind;
      status = 1;
      break;
  }
  summary["message"] = result.message;
  console.printJson(summary.dump(2) + "\n");
  return status;
}

int sweep(const OpcheckOptions& o, const Console& console) {
  bench::SweepOptions options;
  if (o.op != "all") {
    options.family = bench::parseOpFamily(o.op);
  }
  options.count = o.count;
  options.seed = o.seed;
  options.shard = bench::parseShard(o.shard);
  options.hwArgument = o.hw;
  options.check.hw =
      isa::loadNpuConfig(isa::resolveConfigPath(o.hw, std::filesystem::current_path()));
  options.check.engine = engineOf(o);
  options.check.bug = parseBugOption(o.bug);
  options.outDir = o.out;
  options.maxRepros = o.maxRepros;
  options.generator.fieldLimits = !o.noFieldLimits;
  if (!o.report.empty()) {
    // Until the reports are written the folder holds opcheck.partial, so a merge refuses the
    // folder of a task killed mid-run.
    bench::startOutputFolder(o.report, bench::kOpcheckPartialMarker,
                             {"opcheck.md", "opcheck.json", "junit.xml"},
                             fmt::format("npu opcheck {} --count {} --seed {} --shard {}", o.op,
                                         o.count, o.seed, bench::shardText(options.shard)));
  }
  // A progress line every tenth of the sweep (of this shard), and at least every 30 seconds.
  const std::uint64_t cases = bench::shardCases(o.count, options.shard);
  const std::uint64_t step = std::max<std::uint64_t>(1, cases / 10);
  double lastPrint = 0.0;
  // With --verbose, a line after every case.
  auto progress = [&](std::uint64_t done, const bench::SweepReport& report) {
    const bench::SweepCounts c = report.total();
    const std::string line =
        fmt::format("opcheck: {}/{} cases: {} pass, {} fail, {} unsupported ({:.1f} s)\n", done,
                    cases, c.pass, c.fail, c.unsupported, report.seconds);
    if (done % step != 0 && done != cases && report.seconds - lastPrint < 30.0) {
      fmt::print(console.detail(), "{}", line);
      return;
    }
    lastPrint = report.seconds;
    fmt::print(console.verbose() ? console.detail() : console.progress(), "{}", line);
  };
  const bench::SweepReport report = bench::runSweep(options, progress);
  fmt::print(console.out(), "{}", bench::formatSweepSummary(report, options));
  const std::string json = bench::opcheckJson(report, options);
  if (!report.interruptedBy.empty()) {
    // What finished is reported, marked interrupted; the folder keeps opcheck.partial.
    if (!o.report.empty()) {
      bench::writeOpcheckReports(o.report, json);
      fmt::print(console.out(),
                 "reports of the cases that ran: {0}/opcheck.md, {0}/opcheck.json, "
                 "{0}/junit.xml\n",
                 o.report);
    }
    throwIfInterrupted();
  }
  if (!o.report.empty()) {
    bench::writeOpcheckReports(o.report, json);
    bench::finishOutputFolder(o.report, bench::kOpcheckPartialMarker);
    fmt::print(console.out(), "reports: {0}/opcheck.md, {0}/opcheck.json, {0}/junit.xml\n",
               o.report);
  }
  console.printJson(json);  // the document --report writes as opcheck.json
  return report.failures.empty() ? 0 : 1;
}

}  // namespace

void addOpcheckCommand(CLI::App& app, Action& action) {
  auto options = std::make_shared<OpcheckOptions>();
  CLI::App* command = app.add_subcommand(
      "opcheck", "Check random one-op cases bit-exactly against golden, or replay a repro");
  // The families of the op registry (compiler/target/npu_ops.def), and "all".
  std::vector<std::string> families(compiler::kNpuOpFamilyNames.begin(),
                                    compiler::kNpuOpFamilyNames.end());
  const std::string familyList = fmt::format("{}", fmt::join(families, ", "));
  families.emplace_back("all");
  command->add_option("OP", options->op, familyList + " or all (omit with --repro)")
      ->check(CLI::IsMember(families));
  command->add_option("--count", options->count, "Cases to run (default 100)");
  command->add_option("--seed", options->seed, "Sweep seed (default 1)");
  command->add_option("--shard", options->shard,
                      "Run shard i of n (1-based): the sweep's cases k with k mod n = i-1");
  command->add_option(
      "--report", options->report,
      "Write opcheck.md, opcheck.json and junit.xml here (merge shards: npu merge)");
  CLI::Option* hw =
      command->add_option("--hw", options->hw, "Hardware preset name or config file (npu-s)");
  CLI::Option* mode = command->add_option("--mode", options->mode, "functional (default) or timed")
                          ->check(CLI::IsMember({"functional", "timed"}));
  CLI::Option* rtl = command->add_flag("--rtl", options->rtl,
                                       "Run on the Verilator RTL model (its hardware config only)");
  command->add_option("--repro", options->repro, "Replay this repro file instead of sweeping");
  CLI::Option* bug =
      command->add_option("--inject-bug", options->bug,
                          fmt::format("Debug: plant a numerics bug ({})", bench::bugNames()));
  command->add_option("--out", options->out, "Directory for repro files (opcheck-repros)");
  command->add_option("--max-repros", options->maxRepros,
                      "Distinct failures to shrink and write as repros (default 10)");
  command->add_flag("--no-field-limits", options->noFieldLimits,
                    "Skip the ~1% of cases sized past the ISA's 4095 rows/columns/channels");
  addOutputOptions(command, options->output);
  command->callback([&action, options, hw, mode, rtl, bug] {
    options->hwGiven = hw->count() > 0;
    options->modeGiven = mode->count() > 0 || rtl->count() > 0;
    options->bugGiven = bug->count() > 0;
    action = [options] {
      const Console console(options->output, false);
      if (!options->repro.empty()) {
        if (!options->op.empty()) {
          fail(ErrorKind::Usage, "opcheck: give either OP or --repro, not both");
        }
        if (options->shard != "1/1" || !options->report.empty()) {
          fail(ErrorKind::Usage, "opcheck: --shard and --report are for sweeps, not --repro");
        }
        return replay(*options, console);
      }
      if (options->op.empty()) {
        fail(ErrorKind::Usage,
             "opcheck: name an OP (conv, eltwise, pool, lut, concat, upsample, slice, shuffle, "
             "matmul, reduce, resize, norm, all) "
             "or --repro FILE");
      }
      return sweep(*options, console);
    };
  });
}

}  // namespace npu::cli
