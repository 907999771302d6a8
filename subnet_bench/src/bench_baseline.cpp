// Baseline files: reading, writing, and the cycle comparison.
#include "npu/subnet_bench/bench_baseline.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <limits>
#include <optional>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

/// A non-negative number of type T.
template <typename T>
T read(const yaml::Node& node, std::string_view key) {
  if (node.raw().IsScalar()) {
    try {
      const T v = node.raw().as<T>();
      if (v >= T{0}) {
        return v;
      }
    } catch (const YAML::Exception&) {
    }
  }
  node.fail("'{}' must be a non-negative number", key);
}

BaselineEntry readEntry(const yaml::Node& node, const std::string& name) {
  node.expectMap(fmt::format("the baseline of '{}'", name),
                 {"cycles", "macs", "utilization", "cosine"});
  BaselineEntry entry;
  const std::optional<yaml::Node> cycles = node.optional("cycles");
  if (!cycles) {
    node.fail("the baseline of '{}' has no 'cycles'", name);
  }
  entry.cycles = read<std::uint64_t>(*cycles, "cycles");
  if (entry.cycles == 0) {
    cycles->fail("the baseline of '{}' has 0 cycles (a run takes at least one)", name);
  }
  if (const std::optional<yaml::Node> macs = node.optional("macs")) {
    entry.macs = read<std::uint64_t>(*macs, "macs");
  }
  if (const std::optional<yaml::Node> utilization = node.optional("utilization")) {
    entry.utilization = read<double>(*utilization, "utilization");
  }
  if (const std::optional<yaml::Node> cosine = node.optional("cosine")) {
    entry.cosine = read<double>(*cosine, "cosine");
  }
  return entry;
}

Baselines parseRoot(const yaml::Node& root) {
  if (!root.raw().IsMap()) {
    root.fail("a baseline file is a map with 'hardware:' and 'subnets:'");
  }
  root.expectMap("a baseline file", {"hardware", "subnets"});
  const std::optional<yaml::Node> hardware = root.optional("hardware");
  const std::optional<yaml::Node> subnets = root.optional("subnets");
  if (!hardware || !subnets) {
    root.fail("a baseline file needs 'hardware:' and 'subnets:'");
  }
  Baselines baselines;
  if (!hardware->raw().IsScalar() || hardware->raw().Scalar().empty()) {
    hardware->fail("'hardware' must be a hardware config name");
  }
  baselines.hardware = hardware->raw().Scalar();
  if (subnets->raw().IsNull()) {
    return baselines;
  }
  if (!subnets->raw().IsMap()) {
    subnets->fail("'subnets' must be a map of subnet name to its figures");
  }
  for (const auto& subnet : subnets->raw()) {
    const std::string name = subnet.first.as<std::string>();
    const yaml::Node figures(subnet.second, root.source(), fmt::format("subnets.{}", name));
    if (!baselines.subnets.emplace(name, readEntry(figures, name)).second) {
      yaml::Node(subnet.first, root.source()).fail("subnet '{}' has a second baseline entry", name);
    }
  }
  return baselines;
}

}  // namespace

Baselines parseBaselines(std::string_view text, const std::string& source) {
  const yaml::Node root = yaml::parse(text, source);
  try {
    return parseRoot(root);
  } catch (const YAML::Exception& e) {
    fail("{}:{}: {}", source, e.mark.line + 1, e.msg);
  }
}

Baselines loadBaselines(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    fail(
        "{}: no baseline file (create it with `npu bench --update-baselines` on this hardware, or "
        "name one with --baseline)",
        path.string());
  }
  return parseBaselines(readTextFile(path), path.string());
}

std::string baselinesYaml(const Baselines& baselines) {
  std::string out = fmt::format(
      "# Subnetwork benchmark baselines for hardware {}: per subnet, NPU cycles per inference\n"
      "# (compared, within each suite entry's cycle_tolerance), MACs, MAC utilization and the\n"
      "# output cosine vs fp32 (context). Written by `npu bench --update-baselines`.\n"
      "hardware: {}\nsubnets:\n",
      baselines.hardware, baselines.hardware);
  for (const auto& [name, e] : baselines.subnets) {
    out += fmt::format("  {}: {{cycles: {}, macs: {}, utilization: {:.4f}, cosine: {:.5f}}}\n",
                       name, e.cycles, e.macs, e.utilization, e.cosine);
  }
  return out;
}

std::string_view cycleVerdictName(CycleVerdict verdict) {
  switch (verdict) {
    case CycleVerdict::NoBaseline:
      return "no baseline";
    case CycleVerdict::Within:
      return "within";
    case CycleVerdict::Regression:
      return "regression";
    case CycleVerdict::Improvement:
      return "improvement";
  }
  return "?";
}

CycleComparison compareCycles(std::uint64_t cycles, std::optional<std::uint64_t> baseline,
                              double tolerance) {
  CycleComparison c;
  if (!baseline) {
    return c;
  }
  c.baseline = *baseline;
  if (*baseline == 0) {
    c.change = cycles == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  } else {
    c.change = (static_cast<double>(cycles) - static_cast<double>(*baseline)) /
               static_cast<double>(*baseline);
  }
  // The slack keeps a change of exactly the tolerance within it despite rounding ("2%" and
  // 20 / 1000 need not be the same double).
  constexpr double kSlack = 1e-9;
  if (c.change > tolerance + kSlack) {
    c.verdict = CycleVerdict::Regression;
  } else if (c.change < -tolerance - kSlack) {
    c.verdict = CycleVerdict::Improvement;
  } else {
    c.verdict = CycleVerdict::Within;
  }
  return c;
}

}  // namespace npu::bench
