// Reading bench.json back into a BenchReport, and merging the reports of a run's shards.
#include "npu/subnet_bench/bench_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "npu/subnet_bench/bench_report.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/json_error.h"
#include "npu/support/provenance.h"

namespace npu::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

CycleVerdict verdictNamed(const std::string& name) {
  for (const CycleVerdict v : {CycleVerdict::NoBaseline, CycleVerdict::Within,
                               CycleVerdict::Regression, CycleVerdict::Improvement}) {
    if (cycleVerdictName(v) == name) {
      return v;
    }
  }
  throw std::invalid_argument(fmt::format("unknown cycle verdict '{}'", name));
}

/// Field `key` of `object` as a whole number of type T. JSON floats (and, for unsigned T,
/// negative numbers) are refused: nlohmann's conversion of 1e300 to an integer is undefined
/// behaviour.
template <typename T>
T wholeNumber(const json& object, const char* key) {
  const json& value = object.at(key);
  if (!(std::is_unsigned_v<T> ? value.is_number_unsigned() : value.is_number_integer())) {
    throw std::invalid_argument(fmt::format("'{}' must be a{} integer", key,
                                            std::is_unsigned_v<T> ? " non-negative" : "n"));
  }
  return value.get<T>();
}

runtime::LayerRow readLayer(const json& l) {
  runtime::LayerRow row;
  row.layer = l.at("layer").get<std::string>();
  row.kind = l.at("kind").get<std::string>();
  row.device = l.at("device").get<std::string>();
  row.segment = wholeNumber<std::size_t>(l, "segment");
  row.macs = wholeNumber<std::uint64_t>(l, "macs");
  if (row.device == "host") {
    row.cycles = wholeNumber<std::uint64_t>(l, "modelled_cycles");
  } else if (row.device == "npu") {
    row.cycles = wholeNumber<std::uint64_t>(l, "cycles");
    row.computeCycles = wholeNumber<std::uint64_t>(l, "compute_cycles");
    if (l.contains("instructions")) {  // absent from reports of builds before concat by address
      row.instructions = wholeNumber<std::uint64_t>(l, "instructions");
    }
    row.macUtilization = l.at("mac_utilization").get<double>();
    row.ddrBytes = wholeNumber<std::uint64_t>(l, "ddr_bytes");
    row.ddrEfficiency = l.at("ddr_efficiency").get<double>();
    row.rooflineCycles = l.at("roofline_cycles").get<double>();
    // Absent from reports of builds before the fused groups.
    if (l.contains("fused_with") && !l.at("fused_with").is_null()) {
      row.fusedWith = l.at("fused_with").get<std::string>();
      row.groupRooflineRatio = l.at("group_roofline_ratio").get<double>();
    }
    if (!l.at("cosine").is_null()) {
      row.cosine = l.at("cosine").get<double>();
    }
  }
  return row;
}

SubnetResult readResult(const json& s) {
  SubnetResult r;
  r.entry.name = s.at("name").get<std::string>();
  r.suiteIndex = wholeNumber<std::size_t>(s, "index");
  r.entry.location = s.at("location").get<std::string>();
  r.entry.graph = s.at("graph").get<std::string>();
  r.entry.minCosine = s.at("min_cosine").get<double>();
  r.entry.cycleTolerance = s.at("cycle_tolerance").get<double>();
  r.failures = s.at("failures").get<std::vector<std::string>>();
  r.error = s.at("error").get<std::string>();
  r.seconds = s.at("seconds").get<double>();
  if (!r.error.empty()) {
    return r;
  }
  // What the reports read of the main job's report; pass() is bit_exact.
  r.job.inputs = 1;
  r.job.bitExactInputs = s.at("bit_exact").get<bool>() ? 1 : 0;
  r.job.firstMismatch = s.at("first_mismatch").get<std::string>();
  r.job.outputCosine = s.at("cosine").get<double>();
  if (!s.at("baseline_cosine").is_null()) {
    r.baselineCosine = s.at("baseline_cosine").get<double>();
  }
  r.job.totalCycles = wholeNumber<std::uint64_t>(s, "cycles");
  r.cycleCheck.verdict = verdictNamed(s.at("cycle_verdict").get<std::string>());
  if (r.cycleCheck.verdict != CycleVerdict::NoBaseline) {
    r.cycleCheck.baseline = wholeNumber<std::uint64_t>(s, "baseline_cycles");
    r.cycleCheck.change = s.at("cycle_change").get<double>();
  }
  r.job.totalMacs = wholeNumber<std::uint64_t>(s, "macs");
  r.job.macUtilization = s.at("mac_utilization").get<double>();
  r.job.ddrBytes = wholeNumber<std::uint64_t>(s, "ddr_bytes");
  r.job.npuOps = wholeNumber<std::int64_t>(s, "npu_ops");
  r.job.hostOps = wholeNumber<std::int64_t>(s, "host_ops");
  if (s.contains("rtl")) {
    const json& rtl = s.at("rtl");
    r.rtl =
        RtlCheck{rtl.at("matches").get<bool>(), wholeNumber<std::int64_t>(rtl, "cycle_delta"),
                 wholeNumber<std::uint64_t>(rtl, "cycles"), rtl.at("detail").get<std::string>()};
  }
  for (const json& l : s.at("layers")) {
    r.job.layers.push_back(readLayer(l));
  }
  return r;
}

BenchReport readReport(const json& j) {
  BenchReport report;
  report.toolVersion = j.at("tool_version").get<std::string>();
  report.provenance = provenanceFromJson(j.at("provenance"));
  report.suite = j.at("suite").get<std::string>();
  report.suitePath = j.at("suite_file").get<std::string>();
  report.suiteDigest = j.at("suite_digest").get<std::string>();
  report.hardware = j.at("hardware").get<std::string>();
  report.mode = j.at("mode").get<std::string>();
  report.rtl = j.at("rtl").get<bool>();
  report.shard = parseShard(j.at("shard").get<std::string>());
  report.filter = j.at("filter").get<std::string>();
  report.filtered = wholeNumber<std::size_t>(j, "filtered_subnets");
  report.baselinePath = j.at("baselines").get<std::string>();
  report.updatingBaselines = j.at("update_baselines").get<bool>();
  report.seconds = j.at("seconds").get<double>();
  for (const json& s : j.at("subnets")) {
    report.results.push_back(readResult(s));
  }
  return report;
}

/// What shards of one run must share, by name, as text.
std::vector<std::pair<std::string, std::string>> runIdentity(const BenchReport& r) {
  return {{"tools", r.toolVersion},
          {"suite", r.suite},
          {"suite file", r.suitePath.string()},
          {"suite file contents (digest)", r.suiteDigest},
          {"hardware", r.hardware},
          {"hardware config (hash)", r.provenance.hardwareHash},
          {"mode", r.mode},
          {"RTL co-simulation", r.rtl ? "on" : "off"},
          {"filter", r.filter},
          {"baselines", r.baselinePath.string()},
          {"--update-baselines", r.updatingBaselines ? "on" : "off"},
          {"number of subnets the filter selects", std::to_string(r.filtered)}};
}

}  // namespace

void startOutputFolder(const fs::path& dir, std::string_view marker,
                       const std::vector<std::string>& files, const std::string& what) {
  createDirectories(dir);
  std::error_code ignored;
  for (const std::string& file : files) {
    fs::remove(dir / file, ignored);
  }
  writeTextFile(dir / marker,
                fmt::format("{}\nstarted; this file is removed when its reports are written. A "
                            "folder that still has it holds no finished run.\n",
                            what));
}

void finishOutputFolder(const fs::path& dir, std::string_view marker) {
  std::error_code ec;
  fs::remove(dir / marker, ec);
  if (ec) {
    fail("{}: cannot remove {}: {}", dir.string(), marker, ec.message());
  }
}

void checkFinished(const fs::path& dir, std::string_view marker) {
  std::error_code ec;
  if (fs::exists(dir / marker, ec)) {
    fail(
        "{}: did not finish ({} is there: the task was killed or is still running); run it again, "
        "or leave it out and merge with --allow-partial",
        dir.string(), marker);
  }
}

BenchReport readBenchOutput(const fs::path& dir) {
  checkFinished(dir, kBenchPartialMarker);
  const fs::path file = dir / "bench.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    fail("{}: no bench.json (not the output folder of a finished `npu bench` run)", dir.string());
  }
  json j;
  try {
    j = json::parse(readTextFile(file));
  } catch (const json::exception& e) {
    fail("{}: not JSON (truncated or damaged): {}", file.string(), jsonErrorText(e.what()));
  }
  if (!j.is_object() || !j.contains("schema_version") ||
      !j.at("schema_version").is_number_integer()) {
    fail("{}: not an `npu bench` report of schema {} (no \"schema_version\"; written by: {})",
         file.string(), kBenchSchemaVersion, j.value("tool_version", std::string("unknown")));
  }
  if (j.at("schema_version").get<int>() != kBenchSchemaVersion) {
    fail(
        "{}: report schema_version {}, these tools read schema_version {} (written by other "
        "tools: {})",
        file.string(), j.at("schema_version").dump(), kBenchSchemaVersion,
        j.value("tool_version", std::string("unknown")));
  }
  if (j.value("shard", std::string()) == "merged") {
    fail("{}: a merged report; merge the shards' own folders", file.string());
  }
  try {
    return readReport(j);
  } catch (const json::exception& e) {
    fail("{}: not a complete `npu bench` report: {}", file.string(), jsonErrorText(e.what()));
  } catch (const std::invalid_argument& e) {
    fail("{}: not a complete `npu bench` report: {}", file.string(), e.what());
  }
}

BenchReport mergeBenchReports(const std::vector<BenchReport>& shards,
                              const std::vector<std::string>& sources, bool allowPartial) {
  if (shards.empty()) {
    fail("merge: no shard outputs given");
  }
  const BenchReport& first = shards.front();
  const auto identity = runIdentity(first);
  std::vector<std::pair<Shard, std::string>> split;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const auto other = runIdentity(shards[i]);
    for (std::size_t k = 0; k < identity.size(); ++k) {
      if (other[k].second != identity[k].second) {
        fail("{}: {} '{}' differs from '{}' of {} (shards of different runs)", sources[i],
             identity[k].first, other[k].second, identity[k].second, sources.front());
      }
    }
    split.emplace_back(shards[i].shard, sources[i]);
  }
  if (first.toolVersion != toolVersion()) {
    fail("{}: written by {}, but this is {} (merge with the tools that ran the shards)",
         sources.front(), first.toolVersion, toolVersion());
  }
  const std::vector<Shard> missing = missingShards(split);
  if (!missing.empty() && !allowPartial) {
    fail("{} missing (of {}; give every shard's folder, or --allow-partial)",
         shardListText(missing), first.shard.count);
  }

  BenchReport merged = first;
  // The merge's own time and host; the hardware config every shard ran on.
  merged.provenance = reportProvenance();
  merged.provenance.hardwareHash = first.provenance.hardwareHash;
  merged.results.clear();
  merged.seconds = 0.0;
  merged.shard = {};
  merged.missingShards = missing;
  std::vector<std::pair<std::size_t, std::size_t>> order;  // shard position, in shard order
  for (std::size_t i = 0; i < shards.size(); ++i) {
    order.emplace_back(shards[i].shard.index, i);
  }
  std::sort(order.begin(), order.end());
  std::vector<std::pair<std::size_t, std::string>> owner;  // suite index -> source, for messages
  for (const auto& [index, i] : order) {
    merged.shardRuns.push_back({shards[i].shard, sources[i], shards[i].seconds});
    merged.seconds += shards[i].seconds;
    for (const SubnetResult& r : shards[i].results) {
      merged.results.push_back(r);
      owner.emplace_back(r.suiteIndex, sources[i]);
    }
  }
  std::stable_sort(
      merged.results.begin(), merged.results.end(),
      [](const SubnetResult& a, const SubnetResult& b) { return a.suiteIndex < b.suiteIndex; });
  std::sort(owner.begin(), owner.end());
  for (std::size_t k = 1; k < owner.size(); ++k) {
    if (owner[k].first == owner[k - 1].first) {
      fail("{}: subnet #{} of the suite is also in {} (shards of different splits)",
           owner[k].second, owner[k].first, owner[k - 1].second);
    }
  }
  if (missing.empty() && merged.results.size() != merged.filtered) {
    fail("the shards hold {} subnets, but the filter selects {} of the suite",
         merged.results.size(), merged.filtered);
  }
  return merged;
}

}  // namespace npu::bench
