// The subnetwork benchmark's reports: the terminal progress line and table, bench.md,
// bench.json and a self-contained bench.html with charts (JUnit XML: bench_junit.h).
#pragma once

#include <cstddef>
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

std::string benchMarkdown(const BenchReport& report);
std::string benchJson(const BenchReport& report);
/// One HTML file, no external resources: inline SVG charts of cycles, MAC utilization and the
/// change against the baseline per subnet, the table, and each subnet's layers.
std::string benchHtml(const BenchReport& report);

}  // namespace npu::bench
