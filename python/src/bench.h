// npu.bench(): the subnetwork benchmark from Python, through the library calls `npu bench` makes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "npu/subnet_bench/bench_runner.h"

namespace npu::python {

/// The arguments of npu.bench (those of `npu bench`, docs/bench.md).
struct BenchRequest {
  /// Suite file; empty: the default suite (bench::defaultSuitePath).
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
  /// Where to write bench.md/json/html and junit.xml; empty: nothing written.
  std::filesystem::path out;
};

/// Runs the selected subnets as `npu bench` does (same selection, baselines and verdicts) and
/// returns the report; writes the report files when `out` is set. Throws npu::Error with the
/// CLI's message for bad arguments (unknown suite, filter matching nothing, missing baselines).
bench::BenchReport runBenchRequest(const BenchRequest& request);

}  // namespace npu::python
