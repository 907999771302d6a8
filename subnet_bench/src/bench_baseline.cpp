// Baseline files: reading, writing, and the cycle comparison.
#include "npu/subnet_bench/bench_baseline.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>

#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::bench {
namespace {

std::string at(const std::string& source, const YAML::Node& node) {
  return fmt::format("{}:{}", source, std::max(node.Mark().line, 0) + 1);
}

template <typename T>
T read(const std::string& source, const YAML::Node& node, std::string_view key) {
  if (node.IsScalar()) {
    try {
      const T v = node.as<T>();
      if (v >= T{0}) {
        return v;
      }
    } catch (const YAML::Exception&) {
    }
  }
  fail("{}: '{}' must be a non-negative number", at(source, node), key);
}

BaselineEntry readEntry(const std::string& source, const std::string& name,
                        const YAML::Node& node) {
  if (!node.IsMap()) {
    fail("{}: the baseline of '{}' must be a map with cycles", at(source, node), name);
  }
  BaselineEntry entry;
  bool haveCycles = false;
  for (const auto& item : node) {
    const std::string key = item.first.as<std::string>();
    if (key == "cycles") {
      entry.cycles = read<std::uint64_t>(source, item.second, key);
      if (entry.cycles == 0) {
        fail("{}: the baseline of '{}' has 0 cycles (a run takes at least one)",
             at(source, item.second), name);
      }
      haveCycles = true;
    } else if (key == "macs") {
      entry.macs = read<std::uint64_t>(source, item.second, key);
    } else if (key == "utilization") {
      entry.utilization = read<double>(source, item.second, key);
    } else if (key == "cosine") {
      entry.cosine = read<double>(source, item.second, key);
    } else {
      fail("{}: unknown key '{}' in the baseline of '{}' (keys: cycles, macs, utilization, cosine)",
           at(source, item.first), key, name);
    }
  }
  if (!haveCycles) {
    fail("{}: the baseline of '{}' has no 'cycles'", at(source, node), name);
  }
  return entry;
}

Baselines parseRoot(const YAML::Node& root, const std::string& source) {
  if (!root.IsMap()) {
    fail("{}: a baseline file is a map with 'hardware:' and 'subnets:'", at(source, root));
  }
  Baselines baselines;
  bool haveSubnets = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.as<std::string>();
    if (key == "hardware") {
      if (!entry.second.IsScalar() || entry.second.Scalar().empty()) {
        fail("{}: 'hardware' must be a hardware config name", at(source, entry.second));
      }
      baselines.hardware = entry.second.Scalar();
    } else if (key == "subnets") {
      haveSubnets = true;
      if (entry.second.IsNull()) {
        continue;
      }
      if (!entry.second.IsMap()) {
        fail("{}: 'subnets' must be a map of subnet name to its figures", at(source, entry.second));
      }
      for (const auto& subnet : entry.second) {
        const std::string name = subnet.first.as<std::string>();
        if (!baselines.subnets.emplace(name, readEntry(source, name, subnet.second)).second) {
          fail("{}: subnet '{}' has a second baseline entry", at(source, subnet.first), name);
        }
      }
    } else {
      fail("{}: unknown key '{}' (keys: hardware, subnets)", at(source, entry.first), key);
    }
  }
  if (baselines.hardware.empty() || !haveSubnets) {
    fail("{}: a baseline file needs 'hardware:' and 'subnets:'", at(source, root));
  }
  return baselines;
}

}  // namespace

Baselines parseBaselines(std::string_view text, const std::string& source) {
  const YAML::Node root = yaml::parse(text, source).raw();  // syntax errors FILE:LINE:COL
  try {
    return parseRoot(root, source);
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
