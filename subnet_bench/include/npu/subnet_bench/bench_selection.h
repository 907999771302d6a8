// Which subnets of a suite one `npu bench` run takes: a name filter and a deterministic shard,
// so a cluster scheduler (a Slurm job array, a CI matrix) can split the suite.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "npu/subnet_bench/bench_suite.h"

namespace npu::bench {

/// Shard `index` of `count`, 1-based: `--shard 2/4` is the second of four.
struct Shard {
  std::size_t index = 1;
  std::size_t count = 1;
};

/// Parses "i/n" with 1 <= i <= n; throws Error naming `--shard` otherwise.
Shard parseShard(std::string_view text);

/// "2/4".
std::string shardText(const Shard& shard);

/// The shards of one split, each with the folder (or file) it was read from: throws Error, one
/// line naming the culprit, when one is of a split into another number of shards or is given
/// twice; returns the shards of the split that are not there, in order.
std::vector<Shard> missingShards(const std::vector<std::pair<Shard, std::string>>& shards);

/// "shard 3/8" or "shards 3/8, 5/8" (the first ten, then "and N more").
std::string shardListText(const std::vector<Shard>& shards);

/// Indices into suite.subnets, in suite order: the subnets whose name `filter` matches
/// (ECMAScript regex, searched anywhere in the name; empty matches all), then of those the k-th
/// (0-based) goes to shard k % count + 1. The shards of one suite and filter are disjoint and
/// their union is the filtered suite, whatever machine runs them. Throws Error for a bad regex.
std::vector<std::size_t> selectSubnets(const BenchSuite& suite, const std::string& filter,
                                       const Shard& shard);

}  // namespace npu::bench
