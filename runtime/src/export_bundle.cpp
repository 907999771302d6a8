// Bundle writer and reader: manifest YAML, raw .bin and $readmemh .hex per region, CRC-32s.
#include "npu/runtime/export_bundle.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <span>

#include "npu/isa/program.h"
#include "npu/support/crc32.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/provenance.h"
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

constexpr std::string_view kDdrFill = "0xA5 ^ a[7:0] ^ a[15:8]";  // isa::DdrImage::fillPattern

/// $readmemh text of `bytes`: one 16-byte little-endian word per line, the last one zero-padded.
std::string hexText(std::span<const std::uint8_t> bytes) {
  std::string hex;
  for (std::size_t at = 0; at < bytes.size(); at += 16) {
    for (std::size_t i = 16; i-- > 0;) {
      hex += fmt::format("{:02x}", at + i < bytes.size() ? bytes[at + i] : 0);
    }
    hex += '\n';
  }
  return hex;
}

std::string crcText(std::span<const std::uint8_t> bytes) {
  return fmt::format("0x{:08x}", crc32(bytes));
}

/// Writes bytes as .bin and as $readmemh text next to it; returns the CRC-32 text of the .bin.
std::string writeRegionFiles(const std::filesystem::path& dir, const std::string& stem,
                             const std::vector<std::uint8_t>& bytes) {
  writeBinaryFile(dir / (stem + ".bin"), bytes);
  writeTextFile(dir / (stem + ".hex"), hexText(bytes));
  return crcText(bytes);
}

}  // namespace

void writeBundle(const std::filesystem::path& dir, const compiler::CompiledProgram& compiled,
                 const compiler::QuantizedGraph& graph,
                 const std::vector<golden::Int8Tensor>& values, const isa::DdrImage& expected,
                 std::uint64_t cycles) {
  createDirectories(dir / "regions");
  createDirectories(dir / "layers");
  const isa::Program& program = compiled.program;
  const std::vector<std::uint8_t> programBytes = isa::serializeProgram(program);
  writeBinaryFile(dir / "program.npub", programBytes);
  const std::string hwText = isa::toYaml(program.config);
  writeTextFile(dir / "hw.yaml", hwText);
  const isa::DdrImage initial = isa::DdrImage::fromProgram(program);

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << std::string(kBundleFormat);
  // Tools, commit and hardware hash only: the same model and tools give the same bundle, byte
  // for byte (no time, no host).
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : deterministicProvenance(hwText).fields()) {
    out << YAML::Key << key << YAML::Value << value;
  }
  out << YAML::EndMap;
  out << YAML::Key << "hardware" << YAML::Value << program.config.name;
  out << YAML::Key << "hardware_file" << YAML::Value << "hw.yaml";
  out << YAML::Key << "hardware_crc32" << YAML::Value
      << crcText(std::span(reinterpret_cast<const std::uint8_t*>(hwText.data()), hwText.size()));
  out << YAML::Key << "program" << YAML::Value << "program.npub";
  out << YAML::Key << "program_crc32" << YAML::Value << crcText(programBytes);
  out << YAML::Key << "code_address" << YAML::Value << program.codeAddress;
  out << YAML::Key << "instructions" << YAML::Value << program.instructions.size();
  out << YAML::Key << "expected_cycles" << YAML::Value << cycles;
  out << YAML::Key << "ddr_fill" << YAML::Value << std::string(kDdrFill);
  out << YAML::Key << "regions" << YAML::Value << YAML::BeginSeq;
  std::vector<isa::Region> regions = program.regions;
  regions.insert(regions.begin(), program.codeRegion());
  for (const isa::Region& region : regions) {
    const std::string stem = "regions/" + fileStem(region.name);
    const std::string initCrc =
        writeRegionFiles(dir, stem + ".init", initial.readRange(region.base, region.size));
    const std::string expectedCrc =
        writeRegionFiles(dir, stem + ".expected", expected.readRange(region.base, region.size));
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << region.name;
    out << YAML::Key << "kind" << YAML::Value << std::string(isa::regionKindName(region.kind));
    out << YAML::Key << "base" << YAML::Value << region.base;
    out << YAML::Key << "size" << YAML::Value << region.size;
    out << YAML::Key << "file" << YAML::Value << stem + ".init.bin";
    out << YAML::Key << "crc32" << YAML::Value << initCrc;
    out << YAML::Key << "expected_file" << YAML::Value << stem + ".expected.bin";
    out << YAML::Key << "expected_crc32" << YAML::Value << expectedCrc;
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
    const std::string crc = writeRegionFiles(dir, stem, bytes);
    const compiler::QTensor& tensor = graph.tensors[id];
    out << YAML::BeginMap;
    out << YAML::Key << "layer" << YAML::Value << compiler::opName(graph.ops[i]);
    out << YAML::Key << "tensor" << YAML::Value << tensor.name;
    out << YAML::Key << "shape_nhwc" << YAML::Value << YAML::Flow << tensor.shape;
    out << YAML::Key << "scale" << YAML::Value << tensor.scale;
    out << YAML::Key << "zero_point" << YAML::Value << tensor.zeroPoint;
    out << YAML::Key << "address" << YAML::Value << compiled.tensors[id].address;
    if (compiled.tensors[id].onChip) {
      // A cascade kept it in SRAM (docs/cascade.md), or a channel shuffle assembled it only in
      // SRAM (docs/main-job.md): the dump has its value, DDR never does.
      out << YAML::Key << "on_chip" << YAML::Value << true;
    }
    if (const std::int64_t into = compiled.tensors[id].storedIn; into >= 0) {
      // It lives in another tensor's DDR space (docs/main-job.md): a concat input stored into
      // the concat's output, a slice read in place in its source, a concat family member in its
      // root. DDR holds its channels there, pixels `pixel_stride` bytes apart from `address`.
      out << YAML::Key << "stored_in" << YAML::Value
          << graph.tensors[static_cast<std::size_t>(into)].name;
      out << YAML::Key << "pixel_stride" << YAML::Value << compiled.tensors[id].pixelStride;
    }
    out << YAML::Key << "file" << YAML::Value << stem + ".bin";
    out << YAML::Key << "crc32" << YAML::Value << crc;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
  writeTextFile(dir / "manifest.yaml", std::string(out.c_str()) + "\n");
}

namespace {

/// Reads the bundle's manifest and the files it names, checking each field as it goes.
class BundleReader {
 public:
  explicit BundleReader(std::filesystem::path dir)
      : m_dir(std::move(dir)), m_root(yaml::load(m_dir / "manifest.yaml")) {}

  Bundle read() {
    constexpr std::string_view kWhat = "the manifest";
    m_root.expectMap(kWhat, {"format", "provenance", "hardware", "hardware_file", "hardware_crc32",
                             "program", "program_crc32", "code_address", "instructions",
                             "expected_cycles", "ddr_fill", "regions", "layers"});
    const yaml::Node format = m_root.required("format", kWhat);
    if (format.text() == "npu-bundle-1") {
      format.fail(
          "bundle format 'npu-bundle-1' carries no CRC of hw.yaml and program.npub; "
          "export the bundle again");
    }
    if (format.text() != kBundleFormat) {
      format.fail("unknown bundle format '{}' (expected '{}')", format.text(), kBundleFormat);
    }
    Bundle bundle;
    readProvenance();
    readProgram(bundle);
    readHardware(bundle);
    bundle.codeAddress = matchInteger("code_address", bundle.program.codeAddress);
    bundle.instructions = matchInteger("instructions", bundle.program.instructions.size());
    const yaml::Node fill = m_root.required("ddr_fill", kWhat);
    if (fill.text() != kDdrFill) {
      fill.fail("'ddr_fill' is '{}', the DDR model fills with '{}'", fill.text(), kDdrFill);
    }
    bundle.expectedCycles =
        static_cast<std::uint64_t>(m_root.required("expected_cycles", kWhat).integer(0, kMax));
    readRegions(bundle);
    readLayers(bundle);
    return bundle;
  }

 private:
  static constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

  /// The optional provenance mapping (bundles of earlier tools have none): known keys, text
  /// values. It documents where the bundle came from; nothing is checked against it.
  void readProvenance() {
    const std::optional<yaml::Node> provenance = m_root.optional("provenance");
    if (!provenance) {
      return;
    }
    constexpr std::string_view kWhat = "the manifest's provenance";
    provenance->expectMap(kWhat, {"tool", "commit", "hardware_hash", "time_utc", "host"});
    for (const char* key : {"tool", "commit", "hardware_hash", "time_utc", "host"}) {
      if (const std::optional<yaml::Node> value = provenance->optional(key)) {
        static_cast<void>(value->nonEmptyText());  // fails on a non-text or empty value
      }
    }
  }

  /// A file name from the manifest: relative and inside the bundle, never `..` or absolute.
  std::filesystem::path fileOf(const yaml::Node& node) const {
    const std::string name = node.nonEmptyText();
    const std::filesystem::path relative(name);
    const bool escapes =
        std::any_of(relative.begin(), relative.end(),
                    [](const std::filesystem::path& part) { return part == ".."; });
    if (relative.is_absolute() || relative.has_root_name() || escapes) {
      node.fail("{} '{}' must be a path inside the bundle", node.name(), name);
    }
    return insideBundle(m_dir / relative, node);
  }

  /// `path`, once checked to be a regular file inside the bundle.
  std::filesystem::path insideBundle(const std::filesystem::path& path,
                                     const yaml::Node& node) const {
    // A symlink may point anywhere (/dev/zero, another tree): what the manifest names must be a
    // regular file that, symlinks resolved, still lies inside the bundle.
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
    if (ec) {
      node.fail("{}: {}", path.string(), ec.message());
    }
    const std::filesystem::path root = std::filesystem::canonical(m_dir, ec);
    const auto [rootEnd, unused] =
        std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
    if (ec || rootEnd != root.end()) {
      node.fail("{}: resolves to {}, outside the bundle", path.string(), resolved.string());
    }
    if (!std::filesystem::is_regular_file(resolved, ec)) {
      node.fail("{}: not a regular file", path.string());
    }
    return path;
  }

  /// The bytes of the file `fileNode` names, checked against the CRC-32 text of `crcNode` and,
  /// when `size` is given, its length.
  std::vector<std::uint8_t> checkedFile(const yaml::Node& fileNode, const yaml::Node& crcNode,
                                        std::optional<std::uint64_t> size = std::nullopt) const {
    const std::filesystem::path path = fileOf(fileNode);
    std::vector<std::uint8_t> bytes = readBinaryFile(path);
    if (size && bytes.size() != *size) {
      fileNode.fail("{}: {} bytes, the manifest says {}", path.string(), bytes.size(), *size);
    }
    const std::string actual = crcText(bytes);
    if (actual != crcNode.text()) {
      crcNode.fail("{}: CRC-32 {} does not match the manifest's {}", path.string(), actual,
                   crcNode.text());
    }
    return bytes;
  }

  /// A region or layer image: its .bin checked, and the $readmemh .hex beside it holding the
  /// same bytes (the testbench may load either).
  std::vector<std::uint8_t> checkedImage(const yaml::Node& fileNode, const yaml::Node& crcNode,
                                         std::optional<std::uint64_t> size) const {
    std::vector<std::uint8_t> bytes = checkedFile(fileNode, crcNode, size);
    std::filesystem::path hex = fileOf(fileNode);
    if (hex.extension() != ".bin") {
      fileNode.fail("{} '{}' must be a .bin file", fileNode.name(), fileNode.text());
    }
    hex.replace_extension(".hex");
    hex = insideBundle(hex, fileNode);
    if (readTextFile(hex) != hexText(bytes)) {
      fileNode.fail("{}: does not hold the bytes of {}", hex.string(), fileOf(fileNode).string());
    }
    return bytes;
  }

  void readProgram(Bundle& bundle) {
    const yaml::Node file = m_root.required("program", "the manifest");
    const std::vector<std::uint8_t> bytes =
        checkedFile(file, m_root.required("program_crc32", "the manifest"));
    bundle.programFile = file.text();
    bundle.program = isa::parseProgram(bytes, fileOf(file).string());
    m_initial = isa::DdrImage::fromProgram(bundle.program);
  }

  void readHardware(Bundle& bundle) {
    const yaml::Node name = m_root.required("hardware", "the manifest");
    bundle.hardware = name.nonEmptyText();
    if (bundle.hardware != bundle.program.config.name) {
      name.fail("'hardware' is '{}', the program was built for '{}'", bundle.hardware,
                bundle.program.config.name);
    }
    const yaml::Node file = m_root.required("hardware_file", "the manifest");
    const std::vector<std::uint8_t> bytes =
        checkedFile(file, m_root.required("hardware_crc32", "the manifest"));
    bundle.hardwareFile = file.text();
    const isa::NpuConfig config = isa::parseNpuConfig(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
        fileOf(file).string());
    if (!(config == bundle.program.config)) {
      file.fail("{}: differs from the hardware config embedded in {}", fileOf(file).string(),
                bundle.programFile);
    }
  }

  std::uint64_t matchInteger(std::string_view key, std::uint64_t programValue) const {
    const yaml::Node node = m_root.required(key, "the manifest");
    const auto value = static_cast<std::uint64_t>(node.integer(0, kMax));
    if (value != programValue) {
      node.fail("'{}' is {}, the program has {}", key, value, programValue);
    }
    return value;
  }

  void readRegions(Bundle& bundle) {
    std::vector<isa::Region> expected = bundle.program.regions;
    expected.insert(expected.begin(), bundle.program.codeRegion());
    const yaml::Node list = m_root.required("regions", "the manifest");
    const std::vector<yaml::Node> nodes = list.items();
    if (nodes.size() != expected.size()) {
      list.fail("the manifest lists {} regions, the program has {}", nodes.size(), expected.size());
    }
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const yaml::Node& node = nodes[i];
      const isa::Region& want = expected[i];
      constexpr std::string_view kRegion = "a region";
      node.expectMap(kRegion, {"name", "kind", "base", "size", "file", "crc32", "expected_file",
                               "expected_crc32"});
      BundleRegion region;
      region.name = node.required("name", kRegion).nonEmptyText();
      region.kind = node.required("kind", kRegion).text();
      region.base = static_cast<std::uint64_t>(node.required("base", kRegion).integer(0, kMax));
      region.size = static_cast<std::uint64_t>(node.required("size", kRegion).integer(0, kMax));
      auto differs = [&](std::string_view field, const auto& have, const auto& programValue) {
        node.required(field, kRegion)
            .fail("region {} '{}': '{}' is {}, the program has {}", i, region.name, field, have,
                  programValue);
      };
      if (region.name != want.name) {
        differs("name", region.name, want.name);
      }
      if (region.kind != isa::regionKindName(want.kind)) {
        differs("kind", region.kind, isa::regionKindName(want.kind));
      }
      if (region.base != want.base) {
        differs("base", region.base, want.base);
      }
      if (region.size != want.size) {
        differs("size", region.size, want.size);
      }
      const yaml::Node initFile = node.required("file", kRegion);
      const std::vector<std::uint8_t> init =
          checkedImage(initFile, node.required("crc32", kRegion), region.size);
      const std::vector<std::uint8_t> programInit = m_initial.readRange(region.base, region.size);
      if (init != programInit) {
        const auto at = static_cast<std::size_t>(
            std::mismatch(init.begin(), init.end(), programInit.begin()).first - init.begin());
        initFile.fail("{}: byte {} is 0x{:02x}, the program's initial DDR holds 0x{:02x} there",
                      fileOf(initFile).string(), at, init[at], programInit[at]);
      }
      const yaml::Node expectedFile = node.required("expected_file", kRegion);
      (void)checkedImage(expectedFile, node.required("expected_crc32", kRegion), region.size);
      region.initFile = initFile.text();
      region.expectedFile = expectedFile.text();
      bundle.regions.push_back(region);
    }
  }

  void readLayers(Bundle& bundle) const {
    for (const yaml::Node& node : m_root.required("layers", "the manifest").items()) {
      constexpr std::string_view kLayer = "a layer dump";
      node.expectMap(kLayer, {"layer", "tensor", "shape_nhwc", "scale", "zero_point", "address",
                              "on_chip", "stored_in", "pixel_stride", "file", "crc32"});
      std::uint64_t elements = 1;
      for (const yaml::Node& dim : node.required("shape_nhwc", kLayer).items()) {
        elements *= static_cast<std::uint64_t>(dim.integer(1, std::int64_t{1} << 20));
        if (elements > static_cast<std::uint64_t>(bundle.program.config.ddrBytes)) {
          dim.fail("the layer's shape holds more bytes than the {}-byte DDR",
                   bundle.program.config.ddrBytes);
        }
      }
      // A tensor stored in another's DDR space names it and its pixel stride, which must hold
      // at least the tensor's own channels (the shape's last dimension).
      const std::optional<yaml::Node> storedIn = node.optional("stored_in");
      const std::optional<yaml::Node> pixelStride = node.optional("pixel_stride");
      if (storedIn.has_value() != pixelStride.has_value()) {
        node.fail("'stored_in' and 'pixel_stride' come together");
      }
      if (storedIn) {
        if (storedIn->text().empty()) {
          storedIn->fail("'stored_in' names no tensor");
        }
        const auto& dims = node.required("shape_nhwc", kLayer).items();
        const std::int64_t channels =
            dims.empty() ? 1 : dims.back().integer(1, std::int64_t{1} << 20);
        (void)pixelStride->integer(channels, std::int64_t{1} << 20);
      }
      const yaml::Node file = node.required("file", kLayer);
      (void)checkedImage(file, node.required("crc32", kLayer), elements);
      bundle.layerDumps.push_back(file.text());
    }
  }

  std::filesystem::path m_dir;
  yaml::Node m_root;
  isa::DdrImage m_initial{0};
};

}  // namespace

Bundle readBundle(const std::filesystem::path& dir) {
  return BundleReader(dir).read();
}

void checkRunAgainstBundle(const std::filesystem::path& dir, const Bundle& bundle,
                           const isa::DdrImage& ddr, std::uint64_t cycles,
                           std::string_view engine) {
  for (const BundleRegion& region : bundle.regions) {
    const std::vector<std::uint8_t> expected = readBinaryFile(dir / region.expectedFile);
    const std::vector<std::uint8_t> actual = ddr.readRange(region.base, region.size);
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] != actual[i]) {
        fail(ErrorKind::Verification,
             "{}: region '{}' differs at 0x{:x} (offset {}): expected 0x{:02x}, {} wrote 0x{:02x}",
             dir.string(), region.name, region.base + i, i, expected[i], engine, actual[i]);
      }
    }
  }
  if (cycles != bundle.expectedCycles) {
    fail(ErrorKind::Verification, "{}: {} ran {} cycles, the bundle expects {} (expected_cycles)",
         dir.string(), engine, cycles, bundle.expectedCycles);
  }
}

}  // namespace npu::runtime
