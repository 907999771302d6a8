// npu.bench(): suite, selection, baselines and runner exactly as cli/bench_command.cpp uses them.
#include "bench.h"

#include "npu/isa/npu_config.h"
#include "npu/subnet_bench/bench_report.h"
#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/bench_suite.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::python {

bench::BenchReport runBenchRequest(const BenchRequest& request) {
  namespace fs = std::filesystem;
  const fs::path suitePath = request.suite.empty() ? bench::defaultSuitePath() : request.suite;
  const bench::BenchSuite suite = bench::loadSuite(suitePath);
  const fs::path hwPath = isa::resolveConfigPath(request.hw, fs::current_path());
  const isa::NpuConfig hw = isa::loadNpuConfig(hwPath);
  bench::BenchOptions options;
  options.hw = hwPath;
  options.jobs = request.jobs;
  if (request.jobs == 0) {
    fail("bench: jobs must be at least 1");
  }
  if (request.mode == "functional") {
    options.engine = runtime::Engine::Functional;
  } else if (request.mode != "timed") {
    fail("bench: unknown mode '{}' (functional or timed)", request.mode);
  }
  const bench::Shard shard = bench::parseShard(request.shard);
  if (!request.filter.empty() && bench::selectSubnets(suite, request.filter, {}).empty()) {
    fail("--filter: '{}' matches no subnet of {}", request.filter, suitePath.string());
  }
  const std::vector<std::size_t> selected = bench::selectSubnets(suite, request.filter, shard);
  const fs::path baselinePath =
      request.baseline.empty() ? suite.baselineDir / (hw.name + ".yaml") : request.baseline;
  const bench::Baselines baselines =
      bench::baselinesForRun(baselinePath, hw.name, suite, selected, false);
  if (!request.out.empty()) {
    createDirectories(request.out);  // a bad folder fails before the run, as in the CLI
  }
  bench::BenchReport report = bench::runBench(suite, selected, &baselines, options);
  report.hardware = hw.name;
  report.shard = shard;
  report.filter = request.filter;
  report.filtered = bench::selectSubnets(suite, request.filter, {}).size();
  report.baselinePath = baselinePath;
  if (!request.out.empty()) {
    bench::writeBenchReports(request.out, report);
  }
  return report;
}

}  // namespace npu::python
