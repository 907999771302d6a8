// Running the suite: one subnet per task on a small thread pool, each through the main job's
// flow, judged against its thresholds and baseline.
#include "npu/subnet_bench/bench_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>

#include "npu/compiler/frontend/import.h"
#include "npu/isa/npu_config.h"
#include "npu/runtime/cosim.h"
#include "npu/runtime/run_model.h"
#include "npu/support/error.h"
#include "npu/support/interrupt.h"
#include "npu/support/parallel_for.h"
#include "npu/support/provenance.h"

namespace npu::bench {
namespace {

using Clock = std::chrono::steady_clock;

/// Throws Error when the graph's inputs are not exactly the suite entry's.
void checkInputs(const SubnetEntry& entry) {
  const compiler::Graph graph = compiler::importModel(entry.graph);
  std::vector<std::pair<std::string, compiler::Shape>> actual;
  for (compiler::ValueId id : graph.inputs()) {
    const compiler::Value& v = graph.value(id);
    if (!v.isConstant()) {
      actual.emplace_back(v.name, v.shape);
    }
  }
  auto list = [](const auto& inputs) {
    std::string text;
    for (const auto& [name, shape] : inputs) {
      text += fmt::format("{}{}{}", text.empty() ? "" : ", ", name.empty() ? "" : name + " ",
                          shapeText(shape));
    }
    return text;
  };
  bool same = actual.size() == entry.inputs.size();
  for (std::size_t i = 0; same && i < actual.size(); ++i) {
    same = (entry.inputs[i].first.empty() || entry.inputs[i].first == actual[i].first) &&
           entry.inputs[i].second == actual[i].second;
  }
  if (!same) {
    fail("{}: subnet '{}': the suite gives input {} but {} has {}", entry.location, entry.name,
         list(entry.inputs), entry.graph.string(), list(actual));
  }
}

/// The RTL check of the main job's co-simulation (the input it verified, as `npu run --rtl`).
RtlCheck rtlCheck(const std::vector<runtime::SegmentCosim>& segments) {
  RtlCheck check;
  check.matches = true;
  for (const runtime::SegmentCosim& s : segments) {
    check.cycles += s.report.rtl.totalCycles;
    check.cycleDelta += s.report.cycleDelta();
    if (check.matches && !s.matches()) {
      check.matches = false;
      std::string summary = s.report.summary(s.program);
      std::replace(summary.begin(), summary.end(), '\n', ' ');
      check.detail = fmt::format("NPU segment {}: {}{}", s.segment, summary,
                                 s.goldenEqual ? "" : "; RTL final DDR differs from golden");
    }
  }
  return check;
}

}  // namespace

std::size_t BenchReport::failed() const {
  return static_cast<std::size_t>(std::count_if(results.begin(), results.end(),
                                                [](const SubnetResult& r) { return !r.passed(); }));
}

std::size_t BenchReport::errors() const {
  return static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(), [](const SubnetResult& r) { return !r.error.empty(); }));
}

std::size_t BenchReport::count(CycleVerdict verdict) const {
  return static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(),
      [&](const SubnetResult& r) { return r.error.empty() && r.cycleCheck.verdict == verdict; }));
}

void judge(SubnetResult& r, bool updatingBaselines) {
  r.failures.clear();
  if (!r.error.empty()) {
    r.failures.push_back("error: " + r.error);
    return;
  }
  if (!r.bitExact()) {
    r.failures.push_back("bit mismatch: " + r.job.firstMismatch);
  }
  if (r.job.outputCosine < r.entry.minCosine) {
    r.failures.push_back(fmt::format("accuracy: output cosine vs fp32 {:.5f} is below {}",
                                     r.job.outputCosine, r.entry.minCosine));
  }
  if (r.cycleCheck.verdict == CycleVerdict::Regression && !updatingBaselines) {
    r.failures.push_back(fmt::format("cycles: {} vs baseline {} ({:+.2f}%, tolerance {:.2f}%)",
                                     r.job.totalCycles, r.cycleCheck.baseline,
                                     100.0 * r.cycleCheck.change, 100.0 * r.entry.cycleTolerance));
  }
  if (r.rtl && !r.rtl->matches) {
    r.failures.push_back("RTL: " + r.rtl->detail);
  }
}

Baselines baselinesForRun(const std::filesystem::path& path, const std::string& hardware,
                          const BenchSuite& suite, const std::vector<std::size_t>& selected,
                          bool updating) {
  std::error_code ec;
  if (updating && !std::filesystem::exists(path, ec)) {
    return Baselines{hardware, {}};
  }
  Baselines baselines = loadBaselines(path);
  if (baselines.hardware != hardware) {
    fail("{}: the baselines are for hardware '{}', not '{}' (give --baseline or --hw)",
         path.string(), baselines.hardware, hardware);
  }
  if (!updating) {
    for (std::size_t i : selected) {
      const SubnetEntry& entry = suite.subnets[i];
      if (!baselines.subnets.contains(entry.name)) {
        fail(
            "{}: no baseline for subnet '{}' ({}); add it with `npu bench --suite {} --filter "
            "'^{}$' --update-baselines`",
            path.string(), entry.name, entry.location, suite.path.string(), entry.name);
      }
    }
  }
  return baselines;
}

SubnetResult runSubnet(const SubnetEntry& entry, const Baselines* baselines,
                       const BenchOptions& options) {
  const auto start = Clock::now();
  SubnetResult r;
  r.entry = entry;
  try {
    checkInputs(entry);
    runtime::MainJobOptions job;
    job.model = entry.graph;
    job.hw = options.hw;
    job.quantConfig = entry.quantConfig;
    job.engine = options.engine;
    job.maxInputs = 1;
    job.rtl = options.rtl;
    r.job = runtime::runMainJob(job);
    std::optional<std::uint64_t> baseline;
    if (baselines != nullptr) {
      if (auto it = baselines->subnets.find(entry.name); it != baselines->subnets.end()) {
        baseline = it->second.cycles;
        r.baselineCosine = it->second.cosine;
      }
    }
    r.cycleCheck = compareCycles(r.job.totalCycles, baseline, entry.cycleTolerance);
    if (options.rtl) {
      r.rtl = rtlCheck(r.job.rtl);
    }
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted) {
      throw;  // not a result of the subnet: runBench reports it as not run
    }
    r.error = e.what();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  judge(r, options.updatingBaselines);
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

BenchReport runBench(const BenchSuite& suite, const std::vector<std::size_t>& selected,
                     const Baselines* baselines, const BenchOptions& options,
                     const BenchProgress& progress) {
  const auto start = Clock::now();
  BenchReport report;
  report.suite = suite.name;
  report.suitePath = suite.path;
  report.suiteDigest = suite.digest;
  report.mode = std::string(runtime::engineName(options.engine));
  report.rtl = options.rtl;
  report.updatingBaselines = options.updatingBaselines;
  report.toolVersion = std::string(toolVersion());
  report.provenance = options.hw.empty()
                          ? reportProvenance()
                          : reportProvenance(isa::toYaml(isa::loadNpuConfig(options.hw)));
  report.filtered = selected.size();
  report.results.resize(selected.size());

  // Subnets on options.jobs threads; each result lands in its own slot.
  std::size_t done = 0;
  std::mutex progressMutex;
  std::vector<char> finished(selected.size(), 0);
  const InterruptibleScope interruptible;  // a signal stops the run before the next subnet
  parallelFor(selected.size(), options.jobs, [&](std::size_t k) {
    if (pendingInterrupt() != 0) {
      return;  // a signal asked to stop: the subnets not started are reported as not run
    }
    try {
      report.results[k] = runSubnet(suite.subnets.at(selected[k]), baselines, options);
    } catch (const Error&) {
      return;  // interrupted mid-subnet (the only error runSubnet lets through)
    }
    report.results[k].suiteIndex = selected[k];
    finished[k] = 1;
    const std::lock_guard<std::mutex> lock(progressMutex);
    ++done;
    if (progress) {
      progress(done, selected.size(), report.results[k]);
    }
  });
  if (pendingInterrupt() != 0) {
    report.interruptedBy = pendingInterruptName();
    std::vector<SubnetResult> ran;
    for (std::size_t k = 0; k < selected.size(); ++k) {
      if (finished[k] != 0) {
        ran.push_back(std::move(report.results[k]));
      }
    }
    report.results = std::move(ran);
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return report;
}

std::map<std::string, BaselineEntry> baselineEntries(const BenchReport& report) {
  std::map<std::string, BaselineEntry> entries;
  for (const SubnetResult& r : report.results) {
    if (r.passed()) {
      entries[r.entry.name] = {r.job.totalCycles, r.job.totalMacs, r.job.macUtilization,
                               r.job.outputCosine};
    }
  }
  return entries;
}

std::size_t updateBaselines(Baselines& baselines, const BenchReport& report) {
  const std::map<std::string, BaselineEntry> entries = baselineEntries(report);
  for (const auto& [name, entry] : entries) {
    baselines.subnets[name] = entry;
  }
  return entries.size();
}

}  // namespace npu::bench
