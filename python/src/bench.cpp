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
  const bench::BenchPlan plan = bench::planBench(request);
  if (!request.out.empty()) {
    createDirectories(request.out);  // a bad folder fails before the run, as in the CLI
  }
  bench::BenchReport report = bench::runPlan(plan);
  if (!request.out.empty()) {
    bench::writeBenchReports(request.out, report);
  }
  return report;
}

}  // namespace npu::python
