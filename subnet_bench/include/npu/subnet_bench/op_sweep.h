// Sweeps: many random cases of one op family (or all), counted per op kind, with every failure
// shrunk and written as a repro file, and the summary `npu opcheck` prints.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npu/subnet_bench/bench_selection.h"
#include "npu/subnet_bench/op_case.h"
#include "npu/subnet_bench/op_check.h"
#include "npu/subnet_bench/op_generator.h"

namespace npu::bench {

struct SweepOptions {
  /// The family to sweep; nullopt sweeps all of them.
  std::optional<OpFamily> family;
  /// Cases of the whole sweep: case indices 0 .. count-1.
  std::uint64_t count = 100;
  std::uint64_t seed = 1;
  /// The part of the sweep this run takes: case k goes to shard k % n + 1, so the shards of one
  /// sweep are disjoint, together are the sweep, and run exactly the cases it would.
  Shard shard;
  CheckOptions check;
  GeneratorOptions generator;
  /// Recorded in repro files (a preset name or a path, as given to --hw).
  std::string hwArgument = "npu-s";
  /// Where repro files go (created on the first failure), as
  /// `<op>-s<seed>-<index>-<kind>.yaml` (op as swept: a family or "all"; index in the sweep), so
  /// shards and sweeps of other ops or seeds can share the folder.
  std::filesystem::path outDir = "opcheck-repros";
  /// The first failure of each op kind and failure signature is shrunk and written, up to this
  /// many; the others are counted under their signature.
  std::uint64_t maxRepros = 10;
  /// Evaluations one shrink may spend.
  int shrinkBudget = 3000;
};

/// Pass, fail and unsupported counts.
struct SweepCounts {
  std::uint64_t pass = 0;
  std::uint64_t fail = 0;
  std::uint64_t unsupported = 0;
  /// Compiled cases that exercised each CaseFeature (by bit index).
  std::array<std::uint64_t, kFeatureCount> features{};

  std::uint64_t total() const { return pass + fail + unsupported; }
};

/// One failing case of a sweep.
struct SweepFailure {
  std::uint64_t index = 0;
  OpCase original;
  CaseResult result;
  /// "<op kind> <failureSignature>".
  std::string signature;
  /// Set for the first failure of each signature (up to SweepOptions::maxRepros).
  std::optional<ShrinkResult> shrunk;
  std::filesystem::path repro;
};

struct SweepReport {
  std::map<CaseKind, SweepCounts> counts;
  /// Unsupported reasons with digits replaced by '#', and how often each occurred.
  std::map<std::string, std::uint64_t> unsupportedReasons;
  std::vector<SweepFailure> failures;
  double seconds = 0.0;
  /// "SIGINT" or "SIGTERM" when a signal stopped the sweep before its last case
  /// (support/interrupt.h); the counts are those of the cases that ran.
  std::string interruptedBy;

  SweepCounts total() const;
};

/// The case at `index` of a sweep: its kind and seed depend only on (family, seed, index).
OpCase sweepCase(const std::optional<OpFamily>& family, std::uint64_t seed, std::uint64_t index,
                 const GeneratorOptions& generator = {});

/// Called after every case with the cases done so far (of this shard) and the running report.
using SweepProgress = std::function<void(std::uint64_t done, const SweepReport& report)>;

/// How many of the sweep's cases `shard` runs.
std::uint64_t shardCases(std::uint64_t count, const Shard& shard);

/// Runs the sweep (the options' shard of it); failures are shrunk and written to `outDir`.
SweepReport runSweep(const SweepOptions& options, const SweepProgress& progress = {});

/// The summary table: per op kind pass/fail/unsupported, totals, the lowering paths reached, the
/// most frequent
/// unsupported reasons, failures grouped by signature, and each shrunk failure with its repro
/// path.
std::string formatSweepSummary(const SweepReport& report, const SweepOptions& options);

}  // namespace npu::bench
