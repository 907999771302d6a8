// The outputs of `npu bench --shard i/n` read back and merged into the reports one run of the
// whole suite writes (`npu merge`, docs/bench.md), and the marker that tells a finished shard's
// output folder from one whose task was killed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "npu/subnet_bench/bench_runner.h"

namespace npu::bench {

/// Written into an output folder when a run starts and removed once its reports are written: a
/// folder that holds it holds no finished run's reports.
inline constexpr std::string_view kBenchPartialMarker = "bench.partial";

/// Prepares `dir` for the reports of a run: creates it, removes the `files` an earlier run left
/// there (so a killed run cannot leave them looking current) and writes `marker`, whose text
/// says what is running (`what`).
void startOutputFolder(const std::filesystem::path& dir, std::string_view marker,
                       const std::vector<std::string>& files, const std::string& what);

/// Removes `marker` from `dir`: the reports are complete.
void finishOutputFolder(const std::filesystem::path& dir, std::string_view marker);

/// Throws Error "<dir>: ... did not finish ..." when `dir` holds `marker`.
void checkFinished(const std::filesystem::path& dir, std::string_view marker);

/// The report written to `dir`/bench.json, read back. Throws Error, one line naming the folder,
/// for an unfinished run (kBenchPartialMarker), a missing bench.json, one that is truncated or
/// not JSON, one of another format, and a merged report (merge shards, not merges).
BenchReport readBenchOutput(const std::filesystem::path& dir);

/// The report of the whole run that `shards` (each read from the folder in `sources`) are the
/// shards of: results in suite order, seconds added up, the shards listed. Throws Error, one line
/// naming the culprit, when shards differ in tools, suite, hardware, mode, RTL, filter,
/// baselines or baseline updating, when a shard is given twice, and (unless `allowPartial`, which
/// lists them in the report instead) when shards are missing.
BenchReport mergeBenchReports(const std::vector<BenchReport>& shards,
                              const std::vector<std::string>& sources, bool allowPartial);

}  // namespace npu::bench
