// YAML <-> NpuConfig with strict validation: unknown, missing, zero and inconsistent values are
// errors naming the key and the file.
#include "npu/isa/npu_config.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <vector>

#include "npu/isa/limits.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::isa {
namespace {

struct Reader {
  std::string_view source;

  [[noreturn]] void error(std::string_view key, std::string_view what) const {
    fail("{}: '{}': {}", source, key, what);
  }

  void expectKeys(const YAML::Node& node, std::string_view where,
                  const std::set<std::string>& allowed) const {
    if (!node.IsMap()) {
      error(where, "expected a mapping");
    }
    for (const auto& entry : node) {
      const auto key = entry.first.as<std::string>();
      if (allowed.count(key) == 0) {
        const std::string path = where.empty() ? key : std::string(where) + "." + key;
        error(path, "unknown key");
      }
    }
    for (const std::string& key : allowed) {
      if (!node[key]) {
        const std::string path = where.empty() ? key : std::string(where) + "." + key;
        error(path, "missing key");
      }
    }
  }

  std::int64_t integer(const YAML::Node& node, const std::string& path, std::int64_t lowest,
                       std::int64_t highest) const {
    std::int64_t value = 0;
    try {
      value = node.as<std::int64_t>();
    } catch (const YAML::Exception&) {
      error(path, "expected an integer");
    }
    if (value < lowest || value > highest) {
      error(path, fmt::format("{} is out of range [{}, {}]", value, lowest, highest));
    }
    return value;
  }
};

bool isPowerOfTwo(std::int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

}  // namespace

NpuConfig parseNpuConfig(std::string_view yamlText, std::string_view source) {
  const Reader reader{source};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yamlText));
  } catch (const YAML::Exception& e) {
    fail("{}:{}: YAML syntax error: {}", source, e.mark.line + 1, e.msg);
  }
  reader.expectKeys(root, "", {"name", "mac_array", "sram_bytes", "ddr", "clock_mhz", "queues"});
  NpuConfig config;
  try {
    config.name = root["name"].as<std::string>();
  } catch (const YAML::Exception&) {
    reader.error("name", "expected a string");
  }
  if (config.name.empty()) {
    reader.error("name", "must not be empty");
  }

  const YAML::Node mac = root["mac_array"];
  reader.expectKeys(mac, "mac_array", {"rows", "cols"});
  config.macRows = reader.integer(mac["rows"], "mac_array.rows", 1, 256);
  config.macCols = reader.integer(mac["cols"], "mac_array.cols", 1, 256);

  const YAML::Node sram = root["sram_bytes"];
  reader.expectKeys(sram, "sram_bytes", {"input", "weight", "accumulator", "output", "parameter"});
  config.inputSramBytes =
      reader.integer(sram["input"], "sram_bytes.input", 1, limits::kInputSramReach);
  config.weightSramBytes =
      reader.integer(sram["weight"], "sram_bytes.weight", 1, limits::kWeightSramReach);
  config.accumulatorSramBytes = reader.integer(sram["accumulator"], "sram_bytes.accumulator", 4,
                                               4 * limits::kAccumulatorSramEntries);
  config.outputSramBytes =
      reader.integer(sram["output"], "sram_bytes.output", 1, limits::kOutputSramReach);
  config.parameterSramBytes =
      reader.integer(sram["parameter"], "sram_bytes.parameter", 1, limits::kParameterSramReach);

  const YAML::Node ddr = root["ddr"];
  reader.expectKeys(ddr, "ddr", {"size_bytes", "bytes_per_cycle", "latency_cycles", "burst_bytes"});
  config.ddrBytes = reader.integer(ddr["size_bytes"], "ddr.size_bytes", 1, limits::kDdrReach);
  config.ddrBytesPerCycle = reader.integer(ddr["bytes_per_cycle"], "ddr.bytes_per_cycle", 1, 1024);
  config.ddrLatencyCycles = reader.integer(ddr["latency_cycles"], "ddr.latency_cycles", 1, 100000);
  config.ddrBurstBytes = reader.integer(ddr["burst_bytes"], "ddr.burst_bytes", 1, 65536);

  try {
    config.clockMhz = root["clock_mhz"].as<double>();
  } catch (const YAML::Exception&) {
    reader.error("clock_mhz", "expected a number");
  }
  if (!std::isfinite(config.clockMhz) || config.clockMhz <= 0.0 || config.clockMhz > 100000.0) {
    reader.error("clock_mhz", "must be a positive number of MHz (at most 100000)");
  }

  const YAML::Node queues = root["queues"];
  reader.expectKeys(queues, "queues", {"instruction_depth", "token_depth"});
  config.instructionQueueDepth =
      reader.integer(queues["instruction_depth"], "queues.instruction_depth", 1, 4096);
  config.tokenQueueDepth = reader.integer(queues["token_depth"], "queues.token_depth", 1, 4096);

  // Consistency between values.
  if (config.accumulatorSramBytes % 4 != 0) {
    reader.error("sram_bytes.accumulator", "must be a multiple of 4 (int32 entries)");
  }
  if (!isPowerOfTwo(config.ddrBytesPerCycle)) {
    reader.error("ddr.bytes_per_cycle", "must be a power of two");
  }
  if (config.ddrBurstBytes % config.ddrBytesPerCycle != 0) {
    reader.error("ddr.burst_bytes", fmt::format("{} is not a multiple of ddr.bytes_per_cycle ({})",
                                                config.ddrBurstBytes, config.ddrBytesPerCycle));
  }
  // Bursts are aligned address windows (docs/timing.md); hardware finds a burst by masking.
  if (!isPowerOfTwo(config.ddrBurstBytes)) {
    reader.error("ddr.burst_bytes", "must be a power of two");
  }
  if (config.weightSramBytes < config.macRows * config.macCols) {
    reader.error("sram_bytes.weight",
                 fmt::format("{} bytes cannot hold one {}x{} weight block", config.weightSramBytes,
                             config.macRows, config.macCols));
  }
  if (config.accumulatorSramBytes < 4 * config.macCols) {
    reader.error("sram_bytes.accumulator",
                 fmt::format("{} bytes cannot hold one row of {} int32 partial sums",
                             config.accumulatorSramBytes, config.macCols));
  }
  if (config.parameterSramBytes < 256) {
    reader.error("sram_bytes.parameter", "must hold at least one 256-byte LUT");
  }
  return config;
}

NpuConfig loadNpuConfig(const std::filesystem::path& path) {
  return parseNpuConfig(readTextFile(path), path.string());
}

std::string toYaml(const NpuConfig& c) {
  return fmt::format(
      "name: {}\n"
      "mac_array:\n  rows: {}\n  cols: {}\n"
      "sram_bytes:\n  input: {}\n  weight: {}\n  accumulator: {}\n  output: {}\n  parameter: {}\n"
      "ddr:\n  size_bytes: {}\n  bytes_per_cycle: {}\n  latency_cycles: {}\n  burst_bytes: {}\n"
      "clock_mhz: {}\n"
      "queues:\n  instruction_depth: {}\n  token_depth: {}\n",
      c.name, c.macRows, c.macCols, c.inputSramBytes, c.weightSramBytes, c.accumulatorSramBytes,
      c.outputSramBytes, c.parameterSramBytes, c.ddrBytes, c.ddrBytesPerCycle, c.ddrLatencyCycles,
      c.ddrBurstBytes, c.clockMhz, c.instructionQueueDepth, c.tokenQueueDepth);
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
    candidates.push_back(std::filesystem::path(NPU_SOURCE_CONFIG_DIR) / (text + ".yaml"));
  }
  std::string tried;
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return candidate;
    }
    tried += (tried.empty() ? "" : ", ") + candidate.string();
  }
  fail("hardware config '{}' not found (looked in: {})", text, tried);
}

}  // namespace npu::isa
