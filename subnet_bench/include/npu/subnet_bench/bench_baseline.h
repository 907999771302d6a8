// Per-hardware baselines of the subnetwork benchmark (subnet_bench/baselines/<hw>.yaml): the
// figures each subnet reached when they were last accepted, and the comparison of a new run's
// cycles against them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace npu::bench {

/// What one subnet reached: only `cycles` is compared; the rest gives context in reports.
struct BaselineEntry {
  std::uint64_t cycles = 0;
  std::uint64_t macs = 0;
  double utilization = 0.0;
  double cosine = 0.0;

  friend bool operator==(const BaselineEntry&, const BaselineEntry&) = default;
};

struct Baselines {
  /// The hardware config's name (`npu-s`).
  std::string hardware;
  /// By subnet name (sorted, so the file diffs cleanly).
  std::map<std::string, BaselineEntry> subnets;
};

/// Parses a baseline file; `source` names it in errors ("<source>:<line>: ...").
Baselines parseBaselines(std::string_view text, const std::string& source);

/// Reads a baseline file; a missing file is an error that names it and says how to create it.
Baselines loadBaselines(const std::filesystem::path& path);

/// The YAML text of `baselines` (a header comment, then one flow map per subnet).
std::string baselinesYaml(const Baselines& baselines);

/// Writes `entries` into the baseline file at `path` and keeps every other entry it holds, so
/// that any number of concurrent writers (the tasks of a job array, on one machine or on several
/// sharing the file over NFS) end with every entry written. Under an exclusive POSIX (fcntl)
/// record lock on `<path>.lock`, held across the whole update, the file is read afresh (a missing
/// file starts empty for `hardware`), its hardware checked, the entries replaced, and the result
/// written to a temporary file, synced and renamed over `path`. Returns the file as written.
/// Throws Error naming the file when it is for other hardware, cannot be parsed, or cannot be
/// locked (a file system without working locks: docs/bench.md).
Baselines updateBaselineFile(const std::filesystem::path& path, const std::string& hardware,
                             const std::map<std::string, BaselineEntry>& entries);

/// How a run's cycles compare with the baseline.
enum class CycleVerdict : std::uint8_t {
  NoBaseline,   ///< nothing to compare with
  Within,       ///< within the tolerance either way
  Regression,   ///< more cycles than baseline x (1 + tolerance): a failure
  Improvement,  ///< fewer cycles than baseline x (1 - tolerance): reported
};

/// "no baseline", "within", "regression", "improvement".
std::string_view cycleVerdictName(CycleVerdict verdict);

struct CycleComparison {
  CycleVerdict verdict = CycleVerdict::NoBaseline;
  std::uint64_t baseline = 0;
  /// (cycles - baseline) / baseline; 0 without a baseline.
  double change = 0.0;
};

/// Compares `cycles` with `baseline`. A change of exactly the tolerance is still within it.
CycleComparison compareCycles(std::uint64_t cycles, std::optional<std::uint64_t> baseline,
                              double tolerance);

}  // namespace npu::bench
