// The hardware configuration every tool is parameterised by, loaded from YAML and validated.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace npu::isa {

/// One NPU instance: array shape, on-chip SRAM sizes, the virtual DDR and queue depths. One
/// simulator binary serves every configuration; the RTL gets a generated header from the same data.
struct NpuConfig {
  std::string name;
  /// MAC array: `macRows` input channels x `macCols` output channels per cycle.
  std::int64_t macRows = 0;
  std::int64_t macCols = 0;
  /// SRAM sizes in bytes. The accumulator holds int32 partial sums (4 bytes each).
  std::int64_t inputSramBytes = 0;
  std::int64_t weightSramBytes = 0;
  std::int64_t accumulatorSramBytes = 0;
  std::int64_t outputSramBytes = 0;
  std::int64_t parameterSramBytes = 0;
  /// Virtual DDR: size, sustained bytes per cycle, latency of a burst request, burst size.
  std::int64_t ddrBytes = 0;
  std::int64_t ddrBytesPerCycle = 0;
  std::int64_t ddrLatencyCycles = 0;
  std::int64_t ddrBurstBytes = 0;
  double clockMhz = 0.0;
  /// Depth of each unit's instruction queue and of each dependency-token queue.
  std::int64_t instructionQueueDepth = 0;
  std::int64_t tokenQueueDepth = 0;

  friend bool operator==(const NpuConfig&, const NpuConfig&) = default;
};

/// Parses and validates a configuration; `source` names the file in error messages.
NpuConfig parseNpuConfig(std::string_view yamlText, std::string_view source);

/// Loads and validates a configuration file.
NpuConfig loadNpuConfig(const std::filesystem::path& path);

/// The YAML form of a configuration; parseNpuConfig(toYaml(c)) == c.
std::string toYaml(const NpuConfig& config);

/// Resolves `.hw` arguments: a path (contains '/' or ends in .yaml) relative to `baseDir`, then to
/// the working directory; otherwise a preset name looked up in $NPU_CONFIG_DIR and the source
/// tree's configs/ folder. Throws npu::Error listing where it looked.
std::filesystem::path resolveConfigPath(std::string_view nameOrPath,
                                        const std::filesystem::path& baseDir);

}  // namespace npu::isa
