// Filtering and sharding a suite.
#include "npu/subnet_bench/bench_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <regex>

#include "npu/support/error.h"

namespace npu::bench {

Shard parseShard(std::string_view text) {
  const std::size_t slash = text.find('/');
  Shard shard;
  auto number = [](std::string_view digits, std::size_t& out) {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
  };
  if (slash == std::string_view::npos || !number(text.substr(0, slash), shard.index) ||
      !number(text.substr(slash + 1), shard.count) || shard.count == 0 || shard.index == 0 ||
      shard.index > shard.count) {
    fail("--shard: '{}' is not i/n with 1 <= i <= n (e.g. 2/4, the second of four shards)", text);
  }
  return shard;
}

std::string shardText(const Shard& shard) {
  return fmt::format("{}/{}", shard.index, shard.count);
}

std::vector<Shard> missingShards(const std::vector<std::pair<Shard, std::string>>& shards) {
  if (shards.empty()) {
    return {};
  }
  const auto& [first, firstSource] = shards.front();
  std::vector<const std::string*> seen(first.count, nullptr);
  for (const auto& [shard, source] : shards) {
    if (shard.count != first.count) {
      fail("{}: shard {} is of a split into {}, but {} is shard {} of a split into {}", source,
           shardText(shard), shard.count, firstSource, shardText(first), first.count);
    }
    if (seen[shard.index - 1] != nullptr) {
      fail("{}: shard {} given twice (also {})", source, shardText(shard), *seen[shard.index - 1]);
    }
    seen[shard.index - 1] = &source;
  }
  std::vector<Shard> missing;
  for (std::size_t i = 0; i < first.count; ++i) {
    if (seen[i] == nullptr) {
      missing.push_back({i + 1, first.count});
    }
  }
  return missing;
}

std::string shardListText(const std::vector<Shard>& shards) {
  std::string text = shards.size() == 1 ? "shard " : "shards ";
  const std::size_t shown = std::min<std::size_t>(shards.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) {
    text += (i > 0 ? ", " : "") + shardText(shards[i]);
  }
  if (shown < shards.size()) {
    text += fmt::format(" and {} more", shards.size() - shown);
  }
  return text;
}

std::vector<std::size_t> selectSubnets(const BenchSuite& suite, const std::string& filter,
                                       const Shard& shard) {
  std::regex pattern;
  try {
    pattern = std::regex(filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    fail("--filter: '{}' is not a regular expression: {}", filter, e.what());
  }
  std::vector<std::size_t> selected;
  std::size_t matched = 0;
  for (std::size_t i = 0; i < suite.subnets.size(); ++i) {
    if (!filter.empty() && !std::regex_search(suite.subnets[i].name, pattern)) {
      continue;
    }
    if (matched % shard.count + 1 == shard.index) {
      selected.push_back(i);
    }
    ++matched;
  }
  return selected;
}

}  // namespace npu::bench
