// YAML <-> NpuConfig with strict validation: unknown, missing, zero and inconsistent values are
// errors `FILE:LINE: ...` naming the key (the shared reader, npu/support/yaml_reader.h).
#include "npu/isa/npu_config.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

#include "npu/isa/limits.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::isa {
namespace {

bool isPowerOfTwo(std::int64_t value) {
  return value > 0 && (value & (value - 1)) == 0;
}

}  // namespace

NpuConfig parseNpuConfig(std::string_view yamlText, std::string_view source) {
  const yaml::Node root = yaml::parse(yamlText, source);
  constexpr std::string_view kWhat = "the hardware config";
  root.expectMap(kWhat, {"name", "mac_array", "sram_bytes", "ddr", "clock_mhz", "queues"});
  NpuConfig config;
  config.name = root.required("name", kWhat).nonEmptyText();

  const yaml::Node mac = root.required("mac_array", kWhat);
  mac.expectMap("'mac_array'", {"rows", "cols"});
  config.macRows = mac.required("rows", "'mac_array'").integer(1, 256);
  config.macCols = mac.required("cols", "'mac_array'").integer(1, 256);

  const yaml::Node sram = root.required("sram_bytes", kWhat);
  sram.expectMap("'sram_bytes'", {"input", "weight", "accumulator", "output", "parameter"});
  const auto sramSize = [&](std::string_view key, std::int64_t lowest, std::int64_t highest) {
    const yaml::Node node = sram.required(key, "'sram_bytes'");
    return std::pair{node, node.integer(lowest, highest)};
  };
  config.inputSramBytes = sramSize("input", 1, limits::kInputSramReach).second;
  const auto [weight, weightBytes] = sramSize("weight", 1, limits::kWeightSramReach);
  config.weightSramBytes = weightBytes;
  const auto [accumulator, accumulatorBytes] =
      sramSize("accumulator", 4, 4 * limits::kAccumulatorSramEntries);
  config.accumulatorSramBytes = accumulatorBytes;
  config.outputSramBytes = sramSize("output", 1, limits::kOutputSramReach).second;
  const auto [parameter, parameterBytes] = sramSize("parameter", 1, limits::kParameterSramReach);
  config.parameterSramBytes = parameterBytes;

  const yaml::Node ddr = root.required("ddr", kWhat);
  ddr.expectMap("'ddr'", {"size_bytes", "bytes_per_cycle", "latency_cycles", "burst_bytes"});
  config.ddrBytes = ddr.required("size_bytes", "'ddr'").integer(1, limits::kDdrReach);
  const yaml::Node bytesPerCycle = ddr.required("bytes_per_cycle", "'ddr'");
  config.ddrBytesPerCycle = bytesPerCycle.integer(1, 1024);
  config.ddrLatencyCycles = ddr.required("latency_cycles", "'ddr'").integer(1, 100000);
  const yaml::Node burst = ddr.required("burst_bytes", "'ddr'");
  config.ddrBurstBytes = burst.integer(1, 65536);

  const yaml::Node clock = root.required("clock_mhz", kWhat);
  config.clockMhz = clock.number();
  if (config.clockMhz <= 0.0 || config.clockMhz > 100000.0) {
    clock.fail("'clock_mhz': must be a positive number of MHz (at most 100000)");
  }

  const yaml::Node queues = root.required("queues", kWhat);
  queues.expectMap("'queues'", {"instruction_depth", "token_depth"});
  config.instructionQueueDepth = queues.required("instruction_depth", "'queues'").integer(1, 4096);
  config.tokenQueueDepth = queues.required("token_depth", "'queues'").integer(1, 4096);

  // Consistency between values.
  if (config.accumulatorSramBytes % 4 != 0) {
    accumulator.fail("'sram_bytes.accumulator': must be a multiple of 4 (int32 entries)");
  }
  if (!isPowerOfTwo(config.ddrBytesPerCycle)) {
    bytesPerCycle.fail("'ddr.bytes_per_cycle': must be a power of two");
  }
  if (config.ddrBurstBytes % config.ddrBytesPerCycle != 0) {
    burst.fail("'ddr.burst_bytes': {} is not a multiple of ddr.bytes_per_cycle ({})",
               config.ddrBurstBytes, config.ddrBytesPerCycle);
  }
  // Bursts are aligned address windows (docs/timing.md); hardware finds a burst by masking.
  if (!isPowerOfTwo(config.ddrBurstBytes)) {
    burst.fail("'ddr.burst_bytes': must be a power of two");
  }
  if (config.weightSramBytes < config.macRows * config.macCols) {
    weight.fail("'sram_bytes.weight': {} bytes cannot hold one {}x{} weight block",
                config.weightSramBytes, config.macRows, config.macCols);
  }
  if (config.accumulatorSramBytes < 4 * config.macCols) {
    accumulator.fail(
        "'sram_bytes.accumulator': {} bytes cannot hold one row of {} int32 partial sums",
        config.accumulatorSramBytes, config.macCols);
  }
  if (config.parameterSramBytes < 256) {
    parameter.fail("'sram_bytes.parameter': must hold at least one 256-byte LUT");
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
