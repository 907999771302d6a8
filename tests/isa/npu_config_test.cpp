// Hardware config: presets load, and every kind of bad file gets an error `FILE:LINE: ...` naming
// the key.
#include "npu/isa/npu_config.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "npu/isa/instruction.h"

#include "npu/support/error.h"
#include "test_paths.h"

namespace npu::isa {
namespace {

const std::string kValid =
    "name: t\n"
    "mac_array: {rows: 16, cols: 16}\n"
    "sram_bytes: {input: 1024, weight: 1024, accumulator: 1024, output: 1024, parameter: 1024}\n"
    "ddr: {size_bytes: 65536, bytes_per_cycle: 16, latency_cycles: 10, burst_bytes: 64}\n"
    "clock_mhz: 500\n"
    "queues: {instruction_depth: 4, token_depth: 4}\n";

std::string configError(const std::string& text) {
  try {
    parseNpuConfig(text, "hw.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

// SRAM and DDR sizes end where the instruction fields addressing them end: the lowest reach of
// every address field of each memory, read from instructions.def, so a widened field moves the
// config's limit with it.
TEST(NpuConfig, MemorySizesEndAtTheAddressFieldsReach) {
  struct Case {
    std::string key;
    std::string yamlKey;
    std::int64_t reach;
  };
  const std::int64_t sramFields = std::min(
      {fieldMax<&Load::sram_addr>(), fieldMax<&Conv::inp_addr>(), fieldMax<&Conv::wgt_addr>(),
       fieldMax<&Conv::out_addr>(), fieldMax<&Conv::param_addr>(), fieldMax<&Conv::lut_addr>(),
       fieldMax<&Eltwise::a_addr>(), fieldMax<&Eltwise::out_addr>(), fieldMax<&Pool::in_addr>(),
       fieldMax<&Pool::out_addr>(), fieldMax<&Store::sram_addr>()});
  const std::vector<Case> cases = {
      {"sram_bytes.input", "input: 1024", sramFields + 1},
      {"sram_bytes.weight", "weight: 1024", sramFields + 1},
      {"sram_bytes.accumulator", "accumulator: 1024", 4 * (fieldMax<&Conv::acc_addr>() + 1)},
      {"sram_bytes.output", "output: 1024", sramFields + 1},
      {"sram_bytes.parameter", "parameter: 1024", sramFields + 1},
      {"ddr.size_bytes", "size_bytes: 65536",
       std::min(fieldMax<&Load::ddr_addr>(), fieldMax<&Store::ddr_addr>()) + 1},
  };
  for (const Case& c : cases) {
    const std::string name = c.yamlKey.substr(0, c.yamlKey.find(':'));
    EXPECT_EQ(configError(replaced(kValid, c.yamlKey, fmt::format("{}: {}", name, c.reach))),
              "(no error)")
        << c.key;
    EXPECT_EQ(configError(replaced(kValid, c.yamlKey, fmt::format("{}: {}", name, c.reach + 4))),
              fmt::format("hw.yaml:{}: '{}': {} is out of range [{}, {}]",
                          c.key.starts_with("ddr") ? 4 : 3, c.key, c.reach + 4,
                          c.key == "sram_bytes.accumulator" ? 4 : 1, c.reach));
  }
}

TEST(NpuConfig, PresetsLoad) {
  const NpuConfig small = loadNpuConfig(testing::sourcePath("configs/npu-s.yaml"));
  EXPECT_EQ(small.name, "npu-s");
  EXPECT_EQ(small.macRows, 16);
  EXPECT_EQ(small.macCols, 16);
  const NpuConfig large = loadNpuConfig(testing::sourcePath("configs/npu-l.yaml"));
  EXPECT_EQ(large.macRows, 32);
  EXPECT_EQ(large.macCols, 32);
  EXPECT_EQ(parseNpuConfig(toYaml(large), "x"), large);
}

TEST(NpuConfig, ResolvesPresetNames) {
  EXPECT_EQ(resolveConfigPath("npu-s", "").filename(), "npu-s.yaml");
}

TEST(NpuConfig, ValidConfigParses) {
  EXPECT_EQ(configError(kValid), "(no error)");
}

TEST(NpuConfig, UnknownKey) {
  EXPECT_EQ(configError(kValid + "colour: red\n"),
            "hw.yaml:7: unknown key 'colour' in the hardware config (keys: name, mac_array, "
            "sram_bytes, ddr, clock_mhz, queues)");
  EXPECT_EQ(configError(replaced(kValid, "rows: 16", "rows: 16, depth: 2")),
            "hw.yaml:2: unknown key 'depth' in 'mac_array' (keys: rows, cols)");
}

TEST(NpuConfig, MissingKey) {
  EXPECT_EQ(configError(replaced(kValid, "clock_mhz: 500\n", "")),
            "hw.yaml:1: missing key 'clock_mhz' in the hardware config");
  EXPECT_EQ(configError(replaced(kValid, "latency_cycles: 10, ", "")),
            "hw.yaml:4: missing key 'latency_cycles' in 'ddr'");
}

TEST(NpuConfig, ZeroAndOutOfRange) {
  EXPECT_EQ(configError(replaced(kValid, "input: 1024", "input: 0")),
            "hw.yaml:3: 'sram_bytes.input': 0 is out of range [1, 1048576]");
  EXPECT_EQ(configError(replaced(kValid, "cols: 16", "cols: 0")),
            "hw.yaml:2: 'mac_array.cols': 0 is out of range [1, 256]");
  EXPECT_EQ(configError(replaced(kValid, "clock_mhz: 500", "clock_mhz: 0")),
            "hw.yaml:5: 'clock_mhz': 0 is out of range (0, 100000]");
  EXPECT_EQ(configError(replaced(kValid, "rows: 16", "rows: many")),
            "hw.yaml:2: 'mac_array.rows': expected an integer, got 'many'");
}

// The table drives the YAML both ways: every row is a key of the presets, written back in the
// same order.
TEST(NpuConfig, TableDrivesReaderAndWriter) {
  const NpuConfig small = loadNpuConfig(testing::sourcePath("configs/npu-s.yaml"));
  const std::string text = toYaml(small);
  std::size_t at = 0;
  for (const ConfigField& field : configFields()) {
    const std::size_t found = text.find(fmt::format("{}:", field.key), at);
    ASSERT_NE(found, std::string::npos) << field.key;
    at = found;
  }
  EXPECT_EQ(parseNpuConfig(text, "x"), small);
}

TEST(NpuConfig, InconsistentValues) {
  EXPECT_EQ(configError(replaced(kValid, "burst_bytes: 64", "burst_bytes: 40")),
            "hw.yaml:4: 'ddr.burst_bytes': 40 is not a multiple of ddr.bytes_per_cycle (16)");
  EXPECT_EQ(configError(replaced(kValid, "burst_bytes: 64", "burst_bytes: 48")),
            "hw.yaml:4: 'ddr.burst_bytes': must be a power of two");
  EXPECT_EQ(configError(replaced(kValid, "bytes_per_cycle: 16", "bytes_per_cycle: 12")),
            "hw.yaml:4: 'ddr.bytes_per_cycle': must be a power of two");
  EXPECT_EQ(configError(replaced(kValid, "weight: 1024", "weight: 100")),
            "hw.yaml:3: 'sram_bytes.weight': 100 bytes cannot hold one 16x16 weight block");
  EXPECT_EQ(configError(replaced(kValid, "accumulator: 1024", "accumulator: 1022")),
            "hw.yaml:3: 'sram_bytes.accumulator': must be a multiple of 4 (int32 entries)");
}

TEST(NpuConfig, SyntaxErrorNamesLine) {
  EXPECT_EQ(configError("name: t\nmac_array: [1,\n").substr(0, 31),
            "hw.yaml:3:1: YAML syntax error:");
}

}  // namespace
}  // namespace npu::isa
