// Bundle writer and reader: manifest YAML, raw .bin and $readmemh .hex per region, CRC-32s.
#include "npu/runtime/export_bundle.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "npu/isa/program.h"
#include "npu/support/crc32.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/yaml_reader.h"

namespace npu::runtime {
namespace {

std::string fileStem(const std::string& name) {
  std::string out;
  for (const char c : name) {
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_') ? c : '_';
  }
  return out;
}

/// Writes bytes as .bin and as $readmemh text (16-byte little-endian words) next to it.
std::uint32_t writeRegionFiles(const std::filesystem::path& dir, const std::string& stem,
                               const std::vector<std::uint8_t>& bytes) {
  writeBinaryFile(dir / (stem + ".bin"), bytes);
  std::string hex;
  for (std::size_t at = 0; at < bytes.size(); at += 16) {
    for (std::size_t i = 16; i-- > 0;) {
      hex += fmt::format("{:02x}", at + i < bytes.size() ? bytes[at + i] : 0);
    }
    hex += '\n';
  }
  writeTextFile(dir / (stem + ".hex"), hex);
  return crc32(bytes);
}

}  // namespace

void writeBundle(const std::filesystem::path& dir, const compiler::CompiledProgram& compiled,
                 const compiler::QuantizedGraph& graph,
                 const std::vector<golden::Int8Tensor>& values, const isa::DdrImage& expected,
                 std::uint64_t cycles) {
  createDirectories(dir / "regions");
  createDirectories(dir / "layers");
  const isa::Program& program = compiled.program;
  isa::writeProgramFile(dir / "program.npub", program);
  writeTextFile(dir / "hw.yaml", isa::toYaml(program.config));
  const isa::DdrImage initial = isa::DdrImage::fromProgram(program);

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << "npu-bundle-1";
  out << YAML::Key << "hardware" << YAML::Value << program.config.name;
  out << YAML::Key << "hardware_file" << YAML::Value << "hw.yaml";
  out << YAML::Key << "program" << YAML::Value << "program.npub";
  out << YAML::Key << "code_address" << YAML::Value << program.codeAddress;
  out << YAML::Key << "instructions" << YAML::Value << program.instructions.size();
  out << YAML::Key << "expected_cycles" << YAML::Value << cycles;
  out << YAML::Key << "ddr_fill" << YAML::Value << "0xA5 ^ a[7:0] ^ a[15:8]";
  out << YAML::Key << "regions" << YAML::Value << YAML::BeginSeq;
  std::vector<isa::Region> regions = program.regions;
  regions.insert(regions.begin(), program.codeRegion());
  for (const isa::Region& region : regions) {
    const std::string stem = "regions/" + fileStem(region.name);
    const std::uint32_t initCrc =
        writeRegionFiles(dir, stem + ".init", initial.readRange(region.base, region.size));
    const std::uint32_t expectedCrc =
        writeRegionFiles(dir, stem + ".expected", expected.readRange(region.base, region.size));
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << region.name;
    out << YAML::Key << "kind" << YAML::Value << std::string(isa::regionKindName(region.kind));
    out << YAML::Key << "base" << YAML::Value << region.base;
    out << YAML::Key << "size" << YAML::Value << region.size;
    out << YAML::Key << "file" << YAML::Value << stem + ".init.bin";
    out << YAML::Key << "crc32" << YAML::Value << fmt::format("0x{:08x}", initCrc);
    out << YAML::Key << "expected_file" << YAML::Value << stem + ".expected.bin";
    out << YAML::Key << "expected_crc32" << YAML::Value << fmt::format("0x{:08x}", expectedCrc);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (std::size_t i = 0; i < graph.ops.size(); ++i) {
    const compiler::TensorId id = compiler::opOutput(graph.ops[i]);
    const auto& data = values[id].data;
    const std::vector<std::uint8_t> bytes(data.begin(), data.end());
    const std::string stem =
        fmt::format("layers/{:03}_{}", i, fileStem(compiler::opName(graph.ops[i])));
    const std::uint32_t crc = writeRegionFiles(dir, stem, bytes);
    const compiler::QTensor& tensor = graph.tensors[id];
    out << YAML::BeginMap;
    out << YAML::Key << "layer" << YAML::Value << compiler::opName(graph.ops[i]);
    out << YAML::Key << "tensor" << YAML::Value << tensor.name;
    out << YAML::Key << "shape_nhwc" << YAML::Value << YAML::Flow << tensor.shape;
    out << YAML::Key << "scale" << YAML::Value << tensor.scale;
    out << YAML::Key << "zero_point" << YAML::Value << tensor.zeroPoint;
    out << YAML::Key << "address" << YAML::Value << compiled.tensors[id].address;
    out << YAML::Key << "file" << YAML::Value << stem + ".bin";
    out << YAML::Key << "crc32" << YAML::Value << fmt::format("0x{:08x}", crc);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
  writeTextFile(dir / "manifest.yaml", std::string(out.c_str()) + "\n");
}

Bundle readBundle(const std::filesystem::path& dir) {
  const std::filesystem::path manifestPath = dir / "manifest.yaml";
  const yaml::Node root = yaml::load(manifestPath);
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  Bundle bundle;
  auto checkFile = [&](const std::string& file, const std::string& crcText, std::uint64_t size) {
    const std::vector<std::uint8_t> bytes = readBinaryFile(dir / file);
    if (size != 0 && bytes.size() != size) {
      fail("{}: {} bytes, the manifest says {}", (dir / file).string(), bytes.size(), size);
    }
    const std::string actual = fmt::format("0x{:08x}", crc32(bytes));
    if (actual != crcText) {
      fail("{}: CRC-32 {} does not match the manifest's {}", (dir / file).string(), actual,
           crcText);
    }
  };
  constexpr std::string_view kWhat = "the manifest";
  root.expectMap(kWhat, {"format", "hardware", "hardware_file", "program", "code_address",
                         "instructions", "expected_cycles", "ddr_fill", "regions", "layers"});
  const yaml::Node format = root.required("format", kWhat);
  if (format.text() != "npu-bundle-1") {
    format.fail("unknown bundle format '{}'", format.text());
  }
  bundle.hardware = root.required("hardware", kWhat).nonEmptyText();
  bundle.programFile = root.required("program", kWhat).nonEmptyText();
  bundle.expectedCycles =
      static_cast<std::uint64_t>(root.required("expected_cycles", kWhat).integer(0, kMax));
  std::vector<yaml::Node> regionNodes;
  for (const yaml::Node& node : root.required("regions", kWhat).items()) {
    constexpr std::string_view kRegion = "a region";
    node.expectMap(kRegion, {"name", "kind", "base", "size", "file", "crc32", "expected_file",
                             "expected_crc32"});
    BundleRegion region;
    region.name = node.required("name", kRegion).nonEmptyText();
    region.kind = node.required("kind", kRegion).text();
    region.base = static_cast<std::uint64_t>(node.required("base", kRegion).integer(0, kMax));
    region.size = static_cast<std::uint64_t>(node.required("size", kRegion).integer(0, kMax));
    region.initFile = node.required("file", kRegion).nonEmptyText();
    region.expectedFile = node.required("expected_file", kRegion).nonEmptyText();
    checkFile(region.initFile, node.required("crc32", kRegion).text(), region.size);
    checkFile(region.expectedFile, node.required("expected_crc32", kRegion).text(), region.size);
    bundle.regions.push_back(region);
    regionNodes.push_back(node);
  }
  for (const yaml::Node& node : root.required("layers", kWhat).items()) {
    constexpr std::string_view kLayer = "a layer dump";
    node.expectMap(kLayer, {"layer", "tensor", "shape_nhwc", "scale", "zero_point", "address",
                            "file", "crc32"});
    const std::string file = node.required("file", kLayer).nonEmptyText();
    checkFile(file, node.required("crc32", kLayer).text(), 0);
    bundle.layerDumps.push_back(file);
  }
  const isa::Program program = isa::readProgramFile(dir / bundle.programFile);
  // The cosim reads each region's bytes out of the DDR: they must lie inside it.
  const auto ddrBytes = static_cast<std::uint64_t>(program.config.ddrBytes);
  for (std::size_t i = 0; i < bundle.regions.size(); ++i) {
    const BundleRegion& region = bundle.regions[i];
    if (region.size == 0 || region.base > ddrBytes || region.size > ddrBytes - region.base) {
      regionNodes[i].fail("region '{}' [0x{:x}, +{}) is empty or outside the {}-byte DDR",
                          region.name, region.base, region.size, ddrBytes);
    }
  }
  return bundle;
}

}  // namespace npu::runtime
