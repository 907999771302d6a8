// The subnetwork benchmark as JUnit XML, the test-result format CI systems (Jenkins, GitLab,
// GitHub Actions reporters) read: one testcase per subnet.
#pragma once

#include <string>

#include "npu/subnet_bench/bench_runner.h"

namespace npu::bench {

/// `<testsuites>` holding one `<testsuite>` named "subnet_bench.<suite>.<hw>" (with " shard i/n"
/// when sharded, so merged shards stay apart). A failing subnet has a `<failure>` whose message is
/// its first reason and whose text lists them all; a subnet that could not run has an `<error>`.
/// Every subnet's figures go to its `<system-out>`.
std::string benchJunitXml(const BenchReport& report);

}  // namespace npu::bench
