// npu.bench(): the subnetwork benchmark from Python, through the library calls `npu bench` makes.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "npu/subnet_bench/bench_plan.h"
#include "npu/subnet_bench/bench_runner.h"

namespace npu::python {

/// The arguments of npu.bench: those of `npu bench` (docs/bench.md; npu.bench never updates
/// baselines or runs the RTL) and where the report files go.
struct BenchRequest : bench::BenchRequest {
  /// Where to write bench.md/json/html and junit.xml; empty: nothing written.
  std::filesystem::path out;
};

/// Runs the selected subnets as `npu bench` does (same selection, baselines and verdicts) and
/// returns the report; writes the report files when `out` is set. Throws npu::Error with the
/// CLI's message for bad arguments (unknown suite, filter matching nothing, missing baselines).
bench::BenchReport runBenchRequest(const BenchRequest& request);

}  // namespace npu::python
