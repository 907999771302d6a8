// The subnetwork benchmark runner (`npu bench`): every selected subnet compiled, simulated,
// verified bit-exact against golden, measured against fp32 and compared with its baseline, on
// a pool of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "npu/runtime/main_job.h"
#include "npu/simulator/simulate.h"
#include "npu/subnet_bench/bench_baseline.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"

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

struct BenchReport {
  std::string suite;
  std::filesystem::path suitePath;
  std::string hardware;
  std::string mode;
  bool rtl = false;
  Shard shard;
  std::string filter;
  std::filesystem::path baselinePath;
  /// In suite order.
  std::vector<SubnetResult> results;
  double seconds = 0.0;

  [[nodiscard]] std::size_t failed() const;
  [[nodiscard]] std::size_t errors() const;
  [[nodiscard]] std::size_t count(CycleVerdict verdict) const;
  [[nodiscard]] bool passed() const { return failed() == 0; }
};

/// Called as each subnet finishes (from the worker threads, serialised).
using BenchProgress = std::function<void(std::size_t done, std::size_t total, const SubnetResult&)>;

/// Runs one subnet: the main job's flow on the suite entry's graph and quant config (8 seeded
/// synthetic calibration inputs, the first of them run and verified), then the verdict against
/// the entry's thresholds and `baselines` (nullptr: no cycle comparison). Never throws for a
/// problem of the subnet itself: it becomes `error`.
SubnetResult runSubnet(const SubnetEntry& entry, const Baselines* baselines,
                       const BenchOptions& options);

/// Runs `selected` (indices into suite.subnets) on `options.jobs` threads. The report's results
/// are in the order of `selected`, whatever order they finished in.
BenchReport runBench(const BenchSuite& suite, const std::vector<std::size_t>& selected,
                     const Baselines* baselines, const BenchOptions& options,
                     const BenchProgress& progress = {});

/// The verdict of a finished result (sets `failures`) from its figures, the entry's thresholds
/// and the cycle comparison: a bit mismatch, a cosine below the threshold, a cycle regression
/// past the tolerance (unless `updatingBaselines`), an RTL difference, an error.
void judge(SubnetResult& result, bool updatingBaselines);

/// `baselines` with the entries of the passing results replaced by their new figures (failing
/// subnets keep their old entries); returns how many entries were written.
std::size_t updateBaselines(Baselines& baselines, const BenchReport& report);

}  // namespace npu::bench
