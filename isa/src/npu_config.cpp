// YAML <-> NpuConfig with strict validation: unknown, missing, zero and inconsistent values are
// errors `FILE:LINE: ...` naming the key (the shared reader, npu/support/yaml_reader.h). The keys,
// types and ranges come from npu_config.def.
#include "npu/isa/npu_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "npu/isa/limits.h"
#include "npu/support/data_dir.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::isa {
namespace {

constexpr std::string_view kWhat = "the hardware config";

bool isPowerOfTwo(std::int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

/// The value of `section.key` ("key" at the top level), every key being required.
yaml::Node fieldNode(const yaml::Node& root, std::string_view section, std::string_view key) {
  if (section.empty()) {
    return root.required(key, kWhat);
  }
  return root.required(section, kWhat).required(key, fmt::format("'{}'", section));
}

std::string readText(const yaml::Node& node, std::int64_t /*lowest*/, std::int64_t /*highest*/) {
  return node.nonEmptyText();
}

std::int64_t readInteger(const yaml::Node& node, std::int64_t lowest, std::int64_t highest) {
  return node.integer(lowest, highest);
}

double readReal(const yaml::Node& node, std::int64_t lowest, std::int64_t highest) {
  const double value = node.number();
  if (value <= static_cast<double>(lowest) || value > static_cast<double>(highest)) {
    node.fail("{}: {} is out of range ({}, {}]", node.name(), value, lowest, highest);
  }
  return value;
}

/// Appends `key: value` to a YAML text, opening the key's section when it changes.
template <typename Value>
void appendField(std::string& out, std::string_view& openSection, std::string_view section,
                 std::string_view key, const Value& value) {
  if (section != openSection && !section.empty()) {
    out += fmt::format("{}:\n", section);
  }
  openSection = section;
  out += fmt::format("{}{}: {}\n", section.empty() ? "" : "  ", key, value);
}

}  // namespace

std::span<const ConfigField> configFields() {
  static constexpr ConfigField kFields[] = {
#define NPU_CONFIG_FIELD(member, section, key, type, lowest, highest, sv, meaning) \
  {section, key, ConfigFieldType::type, lowest, highest, sv, meaning},
#include "npu/isa/npu_config.def"
#undef NPU_CONFIG_FIELD
  };
  return kFields;
}

NpuConfig parseNpuConfig(std::string_view yamlText, std::string_view source) {
  const yaml::Node root = yaml::parse(yamlText, source);
  // The keys of the top level and of each section, in table order.
  std::vector<std::string_view> topKeys;
  for (const ConfigField& field : configFields()) {
    const std::string_view top = field.section.empty() ? field.key : field.section;
    if (std::find(topKeys.begin(), topKeys.end(), top) == topKeys.end()) {
      topKeys.push_back(top);
    }
  }
  root.expectMap(kWhat, topKeys);
  for (const std::string_view section : topKeys) {
    std::vector<std::string_view> keys;
    for (const ConfigField& field : configFields()) {
      if (field.section == section) {
        keys.push_back(field.key);
      }
    }
    if (!keys.empty()) {
      root.required(section, kWhat).expectMap(fmt::format("'{}'", section), keys);
    }
  }
  NpuConfig config;
#define NPU_CONFIG_FIELD(member, section, key, type, lowest, highest, sv, meaning) \
  config.member = read##type(fieldNode(root, section, key), lowest, highest);
#include "npu/isa/npu_config.def"
#undef NPU_CONFIG_FIELD

  // Consistency between values.
  const auto failAt = [&](std::string_view section, std::string_view key, const std::string& what) {
    const yaml::Node node = fieldNode(root, section, key);
    node.fail("{}: {}", node.name(), what);
  };
  if (config.accumulatorSramBytes % 4 != 0) {
    failAt("sram_bytes", "accumulator", "must be a multiple of 4 (int32 entries)");
  }
  if (!isPowerOfTwo(config.ddrBytesPerCycle)) {
    failAt("ddr", "bytes_per_cycle", "must be a power of two");
  }
  if (config.ddrBurstBytes % config.ddrBytesPerCycle != 0) {
    failAt("ddr", "burst_bytes",
           fmt::format("{} is not a multiple of ddr.bytes_per_cycle ({})", config.ddrBurstBytes,
                       config.ddrBytesPerCycle));
  }
  // Bursts are aligned address windows (docs/timing.md); hardware finds a burst by masking.
  if (!isPowerOfTwo(config.ddrBurstBytes)) {
    failAt("ddr", "burst_bytes", "must be a power of two");
  }
  if (config.weightSramBytes < config.macRows * config.macCols) {
    failAt("sram_bytes", "weight",
           fmt::format("{} bytes cannot hold one {}x{} weight block", config.weightSramBytes,
                       config.macRows, config.macCols));
  }
  if (config.accumulatorSramBytes < 4 * config.macCols) {
    failAt("sram_bytes", "accumulator",
           fmt::format("{} bytes cannot hold one row of {} int32 partial sums",
                       config.accumulatorSramBytes, config.macCols));
  }
  if (config.parameterSramBytes < 256) {
    failAt("sram_bytes", "parameter", "must hold at least one 256-byte LUT");
  }
  return config;
}

NpuConfig loadNpuConfig(const std::filesystem::path& path) {
  return parseNpuConfig(readTextFile(path), path.string());
}

std::string toYaml(const NpuConfig& c) {
  std::string out;
  std::string_view openSection;
#define NPU_CONFIG_FIELD(member, section, key, type, lowest, highest, sv, meaning) \
  appendField(out, openSection, section, key, c.member);
#include "npu/isa/npu_config.def"
#undef NPU_CONFIG_FIELD
  return out;
}

std::filesystem::path resolveConfigPath(std::string_view nameOrPath,
                                        const std::filesystem::path& baseDir) {
  std::vector<std::filesystem::path> candidates;
  const std::string text(nameOrPath);
  std::error_code ec;
  if (text.find('/') != std::string::npos || text.ends_with(".yaml")) {
    const std::filesystem::path path(text);
    if (path.is_relative() && !baseDir.empty()) {
      candidates.push_back(baseDir / path);
    }
    candidates.push_back(path);
  } else {
    if (const char* dir = std::getenv("NPU_CONFIG_DIR"); dir != nullptr && *dir != '\0') {
      candidates.push_back(std::filesystem::path(dir) / (text + ".yaml"));
    }
    if (const std::filesystem::path data = dataDir(); !data.empty()) {
      // Real paths in messages: the build tree's data folder links to the source tree.
      candidates.push_back(
          std::filesystem::weakly_canonical(data / "configs" / (text + ".yaml"), ec));
    }
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return candidate;
    }
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  if (tried.empty()) {
    tried = "no data folder: " + dataDirSearchText();
  }
  fail("hardware config '{}' not found (looked in: {})", text, tried);
}

}  // namespace npu::isa
