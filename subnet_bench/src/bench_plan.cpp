// A bench run's request checked and settled before it runs (bench_plan.h).
#include "npu/subnet_bench/bench_plan.h"

#include "npu/support/error.h"

namespace npu::bench {

BenchPlan planBench(const BenchRequest& request) {
  namespace fs = std::filesystem;
  BenchPlan plan;
  plan.suitePath = request.suite.empty() ? defaultSuitePath() : request.suite;
  plan.suite = loadSuite(plan.suitePath);
  const fs::path hwPath = isa::resolveConfigPath(request.hw, fs::current_path());
  plan.hw = isa::loadNpuConfig(hwPath);
  plan.options.hw = hwPath;
  plan.options.rtl = request.rtl;
  plan.options.updatingBaselines = request.updatingBaselines;
  if (request.jobs == 0) {
    fail("bench: jobs must be at least 1");
  }
  plan.options.jobs = request.jobs;
  if (request.mode == "functional") {
    plan.options.engine = runtime::Engine::Functional;
  } else if (request.mode != "timed") {
    fail("bench: unknown mode '{}' (functional or timed)", request.mode);
  }
  plan.shard = parseShard(request.shard);
  plan.filter = request.filter;
  plan.filtered = selectSubnets(plan.suite, request.filter, {}).size();
  if (!request.filter.empty() && plan.filtered == 0) {
    fail("--filter: '{}' matches no subnet of {}", request.filter, plan.suitePath.string());
  }
  plan.selected = selectSubnets(plan.suite, request.filter, plan.shard);
  plan.baselinePath = request.baseline.empty() ? plan.suite.baselineDir / (plan.hw.name + ".yaml")
                                               : request.baseline;
  plan.baselines = baselinesForRun(plan.baselinePath, plan.hw.name, plan.suite, plan.selected,
                                   request.updatingBaselines);
  return plan;
}

BenchReport runPlan(const BenchPlan& plan, const BenchProgress& progress) {
  BenchReport report = runBench(plan.suite, plan.selected, &plan.baselines, plan.options, progress);
  report.hardware = plan.hw.name;
  report.shard = plan.shard;
  report.filter = plan.filter;
  report.filtered = plan.filtered;
  report.baselinePath = plan.baselinePath;
  return report;
}

}  // namespace npu::bench
