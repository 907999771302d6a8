// The hardware configuration every tool is parameterised by, loaded from YAML and validated.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace npu::isa {

/// The C++ type of each value type of npu_config.def.
#define NPU_CONFIG_TYPE_Text std::string
#define NPU_CONFIG_TYPE_Integer std::int64_t
#define NPU_CONFIG_TYPE_Real double

/// One NPU instance: array shape, on-chip SRAM sizes, the virtual DDR, the clock and queue depths,
/// one member per row of npu_config.def (which documents each). One simulator binary serves
/// every configuration; the RTL gets a generated parameter package from the same data.
struct NpuConfig {
#define NPU_CONFIG_FIELD(member, section, key, type, lowest, highest, sv, meaning) \
  NPU_CONFIG_TYPE_##type member{};
#include "npu/isa/npu_config.def"
#undef NPU_CONFIG_FIELD

  friend bool operator==(const NpuConfig&, const NpuConfig&) = default;
};

/// The value type of a config key.
enum class ConfigFieldType : std::uint8_t { Text, Integer, Real };

/// One row of npu_config.def, for generators and docs.
struct ConfigField {
  std::string_view section;  ///< the YAML mapping holding the key; empty at the top level
  std::string_view key;
  ConfigFieldType type;
  std::int64_t lowest;  ///< Integer: [lowest, highest]; Real: (lowest, highest]
  std::int64_t highest;
  std::string_view svParameter;  ///< localparam of the RTL config package; empty for none
  std::string_view meaning;
};

/// The rows of npu_config.def in file order.
std::span<const ConfigField> configFields();

/// Parses and validates a configuration; `source` names the file in error messages.
NpuConfig parseNpuConfig(std::string_view yamlText, std::string_view source);

/// Loads and validates a configuration file.
NpuConfig loadNpuConfig(const std::filesystem::path& path);

/// The YAML form of a configuration; parseNpuConfig(toYaml(c)) == c.
std::string toYaml(const NpuConfig& config);

/// Resolves `.hw` arguments: a path (contains '/' or ends in .yaml) relative to `baseDir`, then to
/// the working directory; otherwise a preset name looked up in $NPU_CONFIG_DIR and the configs/
/// folder of the data folder (npu::dataDir(): installed share/npu, or the build tree's). Throws
/// npu::Error listing where it looked.
std::filesystem::path resolveConfigPath(std::string_view nameOrPath,
                                        const std::filesystem::path& baseDir);

}  // namespace npu::isa
