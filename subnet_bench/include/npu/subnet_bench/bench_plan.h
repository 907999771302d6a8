// What one `npu bench` run (or npu.bench() in Python) will do, settled before anything runs:
// the suite, the hardware, the subnets selected and the baselines they are judged against.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "npu/isa/npu_config.h"
#include "npu/subnet_bench/bench_runner.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"

namespace npu::bench {

/// The arguments of a bench run (docs/bench.md), as `npu bench` and npu.bench() take them.
struct BenchRequest {
  /// Suite file; empty: the default suite (defaultSuitePath).
  std::filesystem::path suite;
  /// Hardware preset name or YAML path.
  std::string hw = "npu-s";
  /// "timed" or "functional".
  std::string mode = "timed";
  /// ECMAScript regex on subnet names; empty: all.
  std::string filter;
  /// "i/n" (1-based).
  std::string shard = "1/1";
  std::size_t jobs = 1;
  /// Baseline file; empty: <suite's baselines folder>/<hardware name>.yaml.
  std::filesystem::path baseline;
  /// Also co-simulate every NPU segment on the RTL.
  bool rtl = false;
  /// The run is accepting new baselines (a missing file or entry is then no error).
  bool updatingBaselines = false;
};

/// A checked request: every input read, the selection made. Throws npu::Error, one line naming
/// the argument or file, for an unknown mode, a bad shard, a filter matching nothing, an
/// unreadable suite or hardware config, or baselines missing what the run needs.
struct BenchPlan {
  std::filesystem::path suitePath;
  BenchSuite suite;
  isa::NpuConfig hw;
  BenchOptions options;
  Shard shard;
  std::string filter;
  /// Indices into suite.subnets of the subnets this run takes (filter and shard).
  std::vector<std::size_t> selected;
  /// How many subnets the filter alone selects (every shard's together).
  std::size_t filtered = 0;
  std::filesystem::path baselinePath;
  Baselines baselines;
};

BenchPlan planBench(const BenchRequest& request);

/// Runs the plan's subnets (runBench) and stamps the report with what the plan settled: hardware,
/// shard, filter, filtered count, baseline file.
BenchReport runPlan(const BenchPlan& plan, const BenchProgress& progress = {});

}  // namespace npu::bench
