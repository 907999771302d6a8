// The subnetwork benchmark runner (`npu bench`): every selected subnet compiled, simulated,
// verified bit-exact against golden, measured against fp32 and compared with its baseline, on
// a pool of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/runtime/main_job.h"
#include "npu/simulator/simulate.h"
#include "npu/subnet_bench/bench_baseline.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"
#include "npu/support/provenance.h"

namespace npu::bench {

struct BenchOptions {
  /// Hardware config file.
  std::filesystem::path hw;
  /// Functional or Timed (the RTL co-simulates, `rtl`).
  runtime::Engine engine = runtime::Engine::Timed;
  /// Also co-simulate every NPU segment on the RTL (first input).
  bool rtl = false;
  /// Subnets run in parallel (at least 1).
  std::size_t jobs = 1;
  /// Cycle regressions are reported but do not fail (the run is accepting new baselines).
  bool updatingBaselines = false;
};

/// The RTL co-simulation of one subnet.
struct RtlCheck {
  /// RTL final DDR == SystemC final DDR == golden, and every instruction ends on the same cycle.
  bool matches = false;
  /// RTL cycles minus SystemC cycles, summed over the NPU segments.
  std::int64_t cycleDelta = 0;
  std::uint64_t cycles = 0;
  /// The first difference, when there is one.
  std::string detail;
};

/// What one subnet did.
struct SubnetResult {
  SubnetEntry entry;
  /// The entry's position in the suite (a merge puts shards' results back in suite order).
  std::size_t suiteIndex = 0;
  /// Set when the subnet could not run to a verdict (bad graph, shape mismatch, simulator
  /// fault): the error's message.
  std::string error;
  /// The main job's report on the subnet (its first input): verification, cycles, MACs, the
  /// per-layer table; default when `error` is set.
  runtime::MainJobReport job;
  CycleComparison cycleCheck;
  /// The baseline's cosine, for context.
  std::optional<double> baselineCosine;
  std::optional<RtlCheck> rtl;
  double seconds = 0.0;
  /// Why it failed, one line each ("bit mismatch: ...", "accuracy: ...", "cycles: ...",
  /// "RTL: ...", "error: ..."); empty when it passed.
  std::vector<std::string> failures;

  [[nodiscard]] bool passed() const { return failures.empty(); }
  /// The NPU run matched golden bit for bit.
  [[nodiscard]] bool bitExact() const { return job.pass(); }
};

/// One shard of a merged report: which it was, where it was read from, how long it took.
struct ShardRun {
  Shard shard;
  std::string source;
  double seconds = 0.0;
};

struct BenchReport {
  std::string suite;
  std::filesystem::path suitePath;
  /// A digest of the suite file's text (BenchSuite::digest): shards of one run read one suite.
  std::string suiteDigest;
  std::string hardware;
  std::string mode;
  bool rtl = false;
  Shard shard;
  std::string filter;
  /// Subnets the filter takes from the suite, all shards together.
  std::size_t filtered = 0;
  std::filesystem::path baselinePath;
  /// The run was accepting new baselines: cycle regressions are reported, not failures.
  bool updatingBaselines = false;
  /// The tools that ran it (npu::toolVersion()).
  std::string toolVersion;
  /// Tools, commit, hardware-config hash, time and host of the run; of a merged report, the
  /// merge's time and host (support/provenance.h).
  Provenance provenance;
  /// In suite order.
  std::vector<SubnetResult> results;
  /// Wall time; of a merged report, the shards' times added up.
  double seconds = 0.0;
  /// "SIGINT" or "SIGTERM" when a signal stopped the run early: `results` then holds the subnets
  /// that finished, and the reports say loudly that the rest did not run.
  std::string interruptedBy;
  /// Set by a merge (bench_merge.h): the shards merged, in shard order, and those missing
  /// (`--allow-partial`); empty for the report of one run.
  std::vector<ShardRun> shardRuns;
  std::vector<Shard> missingShards;

  [[nodiscard]] std::size_t failed() const;
  [[nodiscard]] std::size_t errors() const;
  [[nodiscard]] std::size_t count(CycleVerdict verdict) const;
  [[nodiscard]] bool merged() const { return !shardRuns.empty(); }
  /// Subnets of the filtered suite that no merged shard ran (missing shards).
  [[nodiscard]] std::size_t notRun() const {
    return filtered > results.size() ? filtered - results.size() : 0;
  }
  /// No subnet failed, no shard is missing and the run was not interrupted.
  [[nodiscard]] bool passed() const {
    return failed() == 0 && missingShards.empty() && interruptedBy.empty();
  }
};

/// Called as each subnet finishes (from the worker threads, serialised).
using BenchProgress = std::function<void(std::size_t done, std::size_t total, const SubnetResult&)>;

/// The baselines a run of `selected` (indices into suite.subnets) on `hardware` compares with,
/// read from `path`: the file must be for that hardware and hold every selected subnet, unless
/// the run is `updating` them (a missing file is then an empty one). Throws Error naming the
/// file and, for a missing entry, the command that adds it. `npu bench` and npu.bench() (Python)
/// both call it.
Baselines baselinesForRun(const std::filesystem::path& path, const std::string& hardware,
                          const BenchSuite& suite, const std::vector<std::size_t>& selected,
                          bool updating);

/// Runs one subnet: the main job's flow on the suite entry's graph and quant config (8 seeded
/// synthetic calibration inputs, the first of them run and verified), then the verdict against
/// the entry's thresholds and `baselines` (nullptr: no cycle comparison). Never throws for a
/// problem of the subnet itself: it becomes `error`; an interrupt (ErrorKind::Interrupted) is
/// thrown on.
SubnetResult runSubnet(const SubnetEntry& entry, const Baselines* baselines,
                       const BenchOptions& options);

/// Runs `selected` (indices into suite.subnets) on `options.jobs` threads. The report's results
/// are in the order of `selected`, whatever order they finished in. A pending interrupt
/// (support/interrupt.h) stops the run before the next subnet: the report then holds the subnets
/// that finished and names the signal in `interruptedBy`.
BenchReport runBench(const BenchSuite& suite, const std::vector<std::size_t>& selected,
                     const Baselines* baselines, const BenchOptions& options,
                     const BenchProgress& progress = {});

/// The verdict of a finished result (sets `failures`) from its figures, the entry's thresholds
/// and the cycle comparison: a bit mismatch, a cosine below the threshold, a cycle regression
/// past the tolerance (unless `updatingBaselines`), an RTL difference, an error.
void judge(SubnetResult& result, bool updatingBaselines);

/// The new baseline entries of a run: the figures of every passing result (failing subnets keep
/// their old entries).
std::map<std::string, BaselineEntry> baselineEntries(const BenchReport& report);

/// `baselines` with the entries of the passing results replaced by their new figures (failing
/// subnets keep their old entries); returns how many entries were written.
std::size_t updateBaselines(Baselines& baselines, const BenchReport& report);

}  // namespace npu::bench
