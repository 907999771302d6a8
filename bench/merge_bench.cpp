// `npu merge` at scale: N shard folders of npu bench and of npu opcheck read back and merged, as
// docs/farm.md ("Scale") reports for N = 1,000. The shards are written once, outside the timing,
// by the same library functions a run uses.
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "npu/subnet_bench/bench_merge.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/subnet_bench/op_report.h"
#include "npu/support/file_io.h"
#include "npu/support/provenance.h"

namespace {

namespace fs = std::filesystem;
using namespace npu::bench;

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / fmt::format("merge_bench_{}_{}", name, ::getpid());
}

/// A passing subnet with `layers` per-layer rows, as resnet_bottleneck has.
SubnetResult subnet(std::size_t index, std::size_t layers) {
  SubnetResult r;
  r.entry.name = fmt::format("subnet_{}", index);
  r.entry.location = fmt::format("suite.yaml:{}", 10 + index);
  r.entry.graph = fmt::format("graphs/subnet_{}.yaml", index);
  r.entry.minCosine = 0.999;
  r.suiteIndex = index;
  r.job.inputs = 1;
  r.job.bitExactInputs = 1;
  r.job.outputCosine = 0.99972;
  r.job.totalCycles = 1612026;
  r.job.totalMacs = 372506624;
  r.job.macUtilization = 0.903;
  r.cycleCheck = compareCycles(1612026, 1612026, 0.02);
  for (std::size_t l = 0; l < layers; ++l) {
    r.job.layers.push_back({fmt::format("conv{}", l), "Conv", "npu", 0, 74501324, 322405, 300000,
                            0.9, 2000000, 0.98, 290000.5, 0.9997});
  }
  return r;
}

/// `shards` bench shard folders, one subnet each: the shards of a suite of `shards` subnets.
std::vector<fs::path> benchShards(const fs::path& dir, std::size_t shards) {
  std::vector<fs::path> dirs;
  for (std::size_t i = 1; i <= shards; ++i) {
    BenchReport report;
    report.suite = "big";
    report.suitePath = "suites/big.yaml";
    report.suiteDigest = "0123456789abcdef";
    report.hardware = "npu-s";
    report.mode = "timed";
    report.shard = {i, shards};
    report.filtered = shards;
    report.baselinePath = "baselines/npu-s.yaml";
    report.toolVersion = std::string(npu::toolVersion());
    report.results = {subnet(i - 1, 5)};
    dirs.push_back(dir / fmt::format("shard-{}", i));
    npu::createDirectories(dirs.back());
    writeBenchReports(dirs.back(), report);
  }
  return dirs;
}

/// `shards` opcheck shard folders of a sweep of 1,000 cases per shard, every op kind reached.
std::vector<fs::path> opcheckShards(const fs::path& dir, std::size_t shards) {
  std::vector<fs::path> dirs;
  SweepOptions options;
  options.count = 1000 * shards;
  SweepReport report;
  for (const CaseKind kind : {CaseKind::Conv, CaseKind::Add, CaseKind::Mul, CaseKind::MaxPool}) {
    SweepCounts& c = report.counts[kind];
    c.pass = 240;
    c.unsupported = 10;
    c.features.fill(17);
  }
  report.unsupportedReasons = {{"layer 'conv': padding above # is not supported by LOAD", 30},
                               {"layer 'maxpool': an output band reads only padding", 10}};
  for (std::size_t i = 1; i <= shards; ++i) {
    options.shard = {i, shards};
    dirs.push_back(dir / fmt::format("shard-{}", i));
    npu::createDirectories(dirs.back());
    writeOpcheckReports(dirs.back(), opcheckJson(report, options));
  }
  return dirs;
}

void BM_MergeBenchShards(benchmark::State& state) {
  const fs::path dir = scratch("bench");
  const std::vector<fs::path> dirs = benchShards(dir, static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<BenchReport> shards;
    std::vector<std::string> sources;
    for (const fs::path& d : dirs) {
      shards.push_back(readBenchOutput(d));
      sources.push_back(d.string());
    }
    const BenchReport merged = mergeBenchReports(shards, sources, false);
    benchmark::DoNotOptimize(benchJson(merged).size() + benchHtml(merged).size() +
                             benchMarkdown(merged).size());
  }
  state.counters["shards/s"] = benchmark::Counter(static_cast<double>(state.range(0)),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  fs::remove_all(dir);
}
BENCHMARK(BM_MergeBenchShards)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_MergeOpcheckShards(benchmark::State& state) {
  const fs::path dir = scratch("opcheck");
  const std::vector<fs::path> dirs = opcheckShards(dir, static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(mergeOpcheckOutputs(dirs, false).size());
  }
  state.counters["shards/s"] = benchmark::Counter(static_cast<double>(state.range(0)),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  fs::remove_all(dir);
}
BENCHMARK(BM_MergeOpcheckShards)->Arg(10)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
