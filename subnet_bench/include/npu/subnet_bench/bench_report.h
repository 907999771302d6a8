// The subnetwork benchmark's reports: the terminal progress line and table, bench.md,
// bench.json and a self-contained bench.html with charts (JUnit XML: bench_junit.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "npu/subnet_bench/bench_runner.h"

namespace npu::bench {

/// "PASS", "FAIL" or "ERROR".
std::string statusText(const SubnetResult& result);

/// The figures of one result in a sentence: cycles and the change against the baseline, MAC
/// utilization, cosine against its threshold, bit-exactness, RTL.
std::string resultFigures(const SubnetResult& result);

/// One line as a subnet finishes: "[ 3/10] PASS resnet_basic_block  988,698 cycles ...".
std::string formatProgressLine(std::size_t done, std::size_t total, const SubnetResult& result);

/// The results as a fixed-width table, each failure's reasons, and the summary line.
std::string formatBenchTable(const BenchReport& report);

/// "bench default on npu-s (timed): 10 subnets, 10 passed, 0 failed; ...".
std::string benchSummaryLine(const BenchReport& report);

/// Of a partial merge: "PARTIAL: shard 3/8 missing; 2 of 15 subnets were not run"; of an
/// interrupted run: "INTERRUPTED by SIGINT: 7 of 15 subnets were not run"; else "".
std::string missingShardsText(const BenchReport& report);

/// The schema version of bench.json ("schema_version"), raised when a merge could no longer read
/// older files back (2: "format" became "schema_version", "provenance" came).
inline constexpr int kBenchSchemaVersion = 2;

std::string benchMarkdown(const BenchReport& report);
std::string benchJson(const BenchReport& report);
/// One HTML file, no external resources: inline SVG charts of cycles, MAC utilization and the
/// change against the baseline per subnet, the table, and each subnet's layers.
std::string benchHtml(const BenchReport& report);

/// Writes bench.md, bench.html, junit.xml and bench.json (bench_junit.h) into `dir`, each through
/// a temporary file and a rename.
void writeBenchReports(const std::filesystem::path& dir, const BenchReport& report);

}  // namespace npu::bench
