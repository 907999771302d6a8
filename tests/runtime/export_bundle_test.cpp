// The bring-up bundle: written from a compiled graph, reloaded with every CRC re-checked; a
// corrupted file is caught; the expected regions equal what the simulator produces.
#include "npu/runtime/export_bundle.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>

#include "../codegen/random_graph.h"
#include "npu/runtime/engine.h"
#include "npu/runtime/verify.h"
#include "npu/simulator/simulate.h"
#include "npu/support/crc32.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::runtime {
namespace {

TEST(ExportBundle, WritesReloadsAndChecksCrcs) {
  compiler::testing::RandomGraphBuilder b(42);
  const compiler::TensorId x = b.input(8, 8, 16);
  const compiler::TensorId y = b.conv(x, 16, 0, 3, 1, 1, 1);
  b.graph().outputs = {b.add(x, y)};
  const auto inputs = b.randomInputs();
  const isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
  const compiler::CompiledProgram compiled = compiler::generateProgram(b.graph(), hw, inputs);
  const auto values = compiler::runQuantizedGraphGolden(b.graph(), inputs);
  const isa::DdrImage expected = expectedDdr(compiled, b.graph(), values);
  const sim::SimResult run = sim::simulate(compiled.program, {});
  ASSERT_FALSE(run.fault);
  ASSERT_FALSE(verifyDdr(compiled, b.graph(), expected, run.ddr));

  const auto dir = std::filesystem::temp_directory_path() / "npu_bundle_test";
  std::filesystem::remove_all(dir);
  writeBundle(dir, compiled, b.graph(), values, expected, run.stats.totalCycles);
  const Bundle bundle = readBundle(dir);
  EXPECT_EQ(bundle.hardware, "npu-s");
  EXPECT_EQ(bundle.expectedCycles, run.stats.totalCycles);
  EXPECT_EQ(bundle.layerDumps.size(), 2U);
  // Every region's expected file holds exactly what the simulator left in DDR there.
  for (const BundleRegion& region : bundle.regions) {
    EXPECT_EQ(readBinaryFile(dir / region.expectedFile),
              run.ddr.readRange(region.base, region.size))
        << region.name;
  }
  EXPECT_TRUE(std::any_of(bundle.regions.begin(), bundle.regions.end(),
                          [](const BundleRegion& r) { return r.kind == "program"; }));

  // Corrupt one byte of the output region's expected file: the reload names it.
  const auto output = std::find_if(bundle.regions.begin(), bundle.regions.end(),
                                   [](const BundleRegion& r) { return r.kind == "output"; });
  ASSERT_NE(output, bundle.regions.end());
  std::vector<std::uint8_t> bytes = readBinaryFile(dir / output->expectedFile);
  bytes[0] ^= 1;
  writeBinaryFile(dir / output->expectedFile, bytes);
  try {
    readBundle(dir);
    FAIL() << "expected a CRC error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(output->expectedFile + ": CRC-32"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove_all(dir);
}

/// What npu verify-bundle does: every static check, then a timed replay against the expected
/// images and cycles.
void verifyBundle(const std::filesystem::path& dir) {
  const Bundle bundle = readBundle(dir);
  const EngineRun run = runOnEngine(bundle.program, Engine::Timed);
  ASSERT_FALSE(run.fault) << *run.fault;
  checkRunAgainstBundle(dir, bundle, run.ddr, run.totalCycles, "the timed simulator");
}

std::string crcOf(const std::filesystem::path& file) {
  return fmt::format("0x{:08x}", crc32(readBinaryFile(file)));
}

void flipByte(const std::filesystem::path& file, std::size_t at) {
  std::vector<std::uint8_t> bytes = readBinaryFile(file);
  bytes.at(at) ^= 0x40;
  writeBinaryFile(file, bytes);
}

std::size_t regionIndex(const YAML::Node& manifest, const std::string& kind) {
  for (std::size_t i = 0; i < manifest["regions"].size(); ++i) {
    if (manifest["regions"][i]["kind"].as<std::string>() == kind) {
      return i;
    }
  }
  throw std::runtime_error("no region of kind " + kind);
}

// A lab loads its board from the manifest's fields and the bundle's files: an edit of any of
// them, even with the CRCs re-sealed, is an error naming what disagrees (issue: a manifest edited
// to `instructions: 7`, `code_address: 1`, `ddr_fill: 0`, `hardware: npu-zz` and a truncated
// hw.yaml all passed before).
TEST(ExportBundle, EveryTamperedFieldAndFileIsNamed) {
  compiler::testing::RandomGraphBuilder b(44);
  const compiler::TensorId x = b.input(8, 8, 16);
  b.graph().outputs = {b.conv(x, 16, 0, 3, 1, 1, 1)};
  const auto inputs = b.randomInputs();
  const isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
  const compiler::CompiledProgram compiled = compiler::generateProgram(b.graph(), hw, inputs);
  const auto values = compiler::runQuantizedGraphGolden(b.graph(), inputs);
  const isa::DdrImage expected = expectedDdr(compiled, b.graph(), values);
  const EngineRun run = runOnEngine(compiled.program, Engine::Timed);
  ASSERT_FALSE(run.fault);
  const auto root = std::filesystem::temp_directory_path() / "npu_bundle_tamper_test";
  std::filesystem::remove_all(root);
  const auto pristine = root / "pristine";
  writeBundle(pristine, compiled, b.graph(), values, expected, run.totalCycles);
  verifyBundle(pristine);  // the untouched bundle passes

  using Edit = std::function<void(YAML::Node&, const std::filesystem::path&)>;
  auto field = [](const std::string& key, const std::string& value) -> Edit {
    return [key, value](YAML::Node& m, const std::filesystem::path&) { m[key] = value; };
  };
  auto regionField = [](const std::string& kind, const std::string& key,
                        const std::string& value) -> Edit {
    return [kind, key, value](YAML::Node& m, const std::filesystem::path&) {
      m["regions"][regionIndex(m, kind)][key] = value;
    };
  };
  // Changes a region's file and re-seals its CRC in the manifest, so only the deeper check sees it.
  auto resealedRegionFile = [](const std::string& kind, const std::string& fileKey,
                               const std::string& crcKey) -> Edit {
    return [kind, fileKey, crcKey](YAML::Node& m, const std::filesystem::path& dir) {
      YAML::Node region = m["regions"][regionIndex(m, kind)];
      const auto file = dir / region[fileKey].as<std::string>();
      flipByte(file, 0);
      region[crcKey] = crcOf(file);
      // ... and the $readmemh copy beside it, as a careful hand would.
      const std::vector<std::uint8_t> bytes = readBinaryFile(file);
      std::string hex;
      for (std::size_t word = 0; word < bytes.size(); word += 16) {
        for (std::size_t i = 16; i-- > 0;) {
          hex += fmt::format("{:02x}", word + i < bytes.size() ? bytes[word + i] : 0);
        }
        hex += '\n';
      }
      auto hexFile = file;
      writeTextFile(hexFile.replace_extension(".hex"), hex);
    };
  };
  struct Case {
    std::string what;
    Edit edit;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"format", field("format", "npu-bundle-1"), "carries no CRC of hw.yaml"},
      {"hardware", field("hardware", "npu-zz"), "'hardware' is 'npu-zz', the program was built"},
      {"code_address", field("code_address", "1"), "'code_address' is 1, the program has"},
      {"instructions", field("instructions", "7"), "'instructions' is 7, the program has"},
      {"ddr_fill", field("ddr_fill", "0"), "'ddr_fill' is '0'"},
      {"expected_cycles", field("expected_cycles", std::to_string(run.totalCycles + 1)),
       "the bundle expects"},
      {"program_crc32", field("program_crc32", "0x00000000"), "program.npub: CRC-32"},
      {"hardware_crc32", field("hardware_crc32", "0x00000000"), "hw.yaml: CRC-32"},
      {"hardware_file outside", field("hardware_file", "../pristine/hw.yaml"),
       "must be a path inside the bundle"},
      {"region name", regionField("output", "name", "renamed"), "'name' is renamed"},
      {"region kind", regionField("output", "kind", "scratch"), "'kind' is scratch"},
      {"region base", regionField("output", "base", "0"), "'base' is 0"},
      {"region count",
       [](YAML::Node& m, const std::filesystem::path&) {
         m["regions"].remove(m["regions"].size() - 1);
       },
       "regions, the program has"},
      {"region file absolute", regionField("input", "file", "/etc/hostname"),
       "must be a path inside the bundle"},
      {"symlink out of the bundle",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         std::filesystem::create_symlink("/etc/hostname", dir / "elsewhere.yaml");
         m["hardware_file"] = "elsewhere.yaml";
       },
       "outside the bundle"},
      {"symlink to a device",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         std::filesystem::create_symlink("/dev/zero", dir / "zero.npub");
         m["program"] = "zero.npub";
       },
       "outside the bundle"},
      {"directory as a file",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         std::filesystem::create_directory(dir / "sub");
         m["program"] = "sub";
       },
       "not a regular file"},
      {"program.npub truncated",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         std::vector<std::uint8_t> bytes = readBinaryFile(dir / "program.npub");
         bytes.resize(bytes.size() / 2);
         writeBinaryFile(dir / "program.npub", bytes);
         m["program_crc32"] = crcOf(dir / "program.npub");
       },
       "program.npub"},
      {"hw.yaml truncated",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         const std::string text = readTextFile(dir / "hw.yaml");
         writeTextFile(dir / "hw.yaml", text.substr(0, text.find('\n', text.size() / 3) + 1));
         m["hardware_crc32"] = crcOf(dir / "hw.yaml");
       },
       "hw.yaml"},
      {"hw.yaml edited",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         std::string text = readTextFile(dir / "hw.yaml");
         const auto at = text.find("bytes_per_cycle: ");
         ASSERT_NE(at, std::string::npos);
         text = text.substr(0, at + 17) + "1" +
                text.substr(at + 17);  // 16 -> 116: another DDR bandwidth
         writeTextFile(dir / "hw.yaml", text);
         m["hardware_crc32"] = crcOf(dir / "hw.yaml");
       },
       "hw.yaml"},
      {"input init image, re-sealed", resealedRegionFile("input", "file", "crc32"),
       "the program's initial DDR holds"},
      {"output expected image, re-sealed",
       resealedRegionFile("output", "expected_file", "expected_crc32"), "differs at 0x"},
      {"input init hex",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         auto hex = dir / m["regions"][regionIndex(m, "input")]["file"].as<std::string>();
         hex.replace_extension(".hex");
         std::string text = readTextFile(hex);
         text[0] = text[0] == '0' ? '1' : '0';
         writeTextFile(hex, text);
       },
       "does not hold the bytes of"},
      {"layer dump",
       [](YAML::Node& m, const std::filesystem::path& dir) {
         flipByte(dir / m["layers"][0]["file"].as<std::string>(), 0);
       },
       "CRC-32"},
      {"layer dump stored_in alone",
       [](YAML::Node& m, const std::filesystem::path&) { m["layers"][0]["stored_in"] = "t0"; },
       "'stored_in' and 'pixel_stride' come together"},
      {"layer dump pixel stride narrower than its channels",
       [](YAML::Node& m, const std::filesystem::path&) {
         m["layers"][0]["stored_in"] = "t0";
         m["layers"][0]["pixel_stride"] = "3";
       },
       "pixel_stride"},
  };
  for (const Case& c : cases) {
    const auto dir = root / "tampered";
    std::filesystem::remove_all(dir);
    std::filesystem::copy(pristine, dir, std::filesystem::copy_options::recursive);
    YAML::Node manifest = YAML::LoadFile((dir / "manifest.yaml").string());
    c.edit(manifest, dir);
    writeTextFile(dir / "manifest.yaml", YAML::Dump(manifest) + "\n");
    try {
      verifyBundle(dir);
      ADD_FAILURE() << c.what << ": the tampered bundle passed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(c.error), std::string::npos)
          << c.what << ": " << e.what();
    }
  }
  std::filesystem::remove_all(root);
}

TEST(ExportBundle, MismatchReportNamesLayerTensorAndInstruction) {
  compiler::testing::RandomGraphBuilder b(43);
  const compiler::TensorId x = b.input(6, 6, 8);
  const compiler::TensorId y = b.conv(x, 8, 0, 3, 1, 1, 1);
  b.graph().outputs = {b.pool(y, false, 2, 2, 0)};
  const auto inputs = b.randomInputs();
  const isa::NpuConfig hw =
      isa::loadNpuConfig(std::filesystem::path(NPU_SOURCE_DIR) / "configs/npu-s.yaml");
  compiler::CompiledProgram compiled = compiler::generateProgram(b.graph(), hw, inputs);
  const auto values = compiler::runQuantizedGraphGolden(b.graph(), inputs);
  const isa::DdrImage expected = expectedDdr(compiled, b.graph(), values);
  // Corrupt one instruction: the first CONV's output zero point.
  for (auto& instruction : compiled.program.instructions) {
    if (auto* conv = std::get_if<isa::Conv>(&instruction)) {
      conv->out_zp = conv->out_zp == 127 ? 126 : conv->out_zp + 1;
      conv->clip_lo = std::min(conv->clip_lo, conv->out_zp);
      break;
    }
  }
  const sim::SimResult run = sim::simulate(compiled.program, {});
  ASSERT_FALSE(run.fault);
  // The corrupted conv also shifted the pool's input, but the first difference in DDR order is
  // in the conv's output (placed first in the activation arena or right after the pinned
  // output), and the report must name the layer that produced it.
  const auto mismatch = verifyDdr(compiled, b.graph(), expected, run.ddr);
  ASSERT_TRUE(mismatch);
  EXPECT_TRUE(mismatch->layer == "conv0" || mismatch->layer == "maxpool1") << mismatch->message;
  EXPECT_GE(mismatch->instruction, 0);
  EXPECT_NE(mismatch->message.find("layer '"), std::string::npos);
  EXPECT_NE(mismatch->message.find("last written by instruction"), std::string::npos);
}

}  // namespace
}  // namespace npu::runtime
