// The .npub container: header, section table, and config/code/manifest/segment sections, with a
// CRC-32 over the whole file so that any corruption is reported rather than executed.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>

#include "npu/isa/encoding.h"
#include "npu/isa/program.h"
#include "npu/support/crc32.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"
#include "npu/support/json_error.h"

namespace npu::isa {
namespace {

constexpr std::array<std::uint8_t, 8> kMagic = {'N', 'P', 'U', 'P', 'R', 'O', 'G', 0};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 48;
constexpr std::size_t kSectionEntryBytes = 24;
constexpr std::size_t kCrcOffset = 12;
constexpr std::uint32_t kMaxSections = 1U << 20;

enum class SectionType : std::uint32_t { Config = 1, Code = 2, Manifest = 3, Segment = 4 };

void putU32(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}
void putU64(std::vector<std::uint8_t>& out, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    out[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}
std::uint32_t getU32(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    v |= static_cast<std::uint32_t>(in[at + i]) << (8 * i);
  }
  return v;
}
std::uint64_t getU64(std::span<const std::uint8_t> in, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    v |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  }
  return v;
}

nlohmann::json manifestToJson(const Program& program) {
  nlohmann::json regions = nlohmann::json::array();
  for (const Region& region : program.regions) {
    regions.push_back({{"name", region.name},
                       {"kind", regionKindName(region.kind)},
                       {"base", region.base},
                       {"size", region.size},
                       {"dtype", region.dtype},
                       {"shape", region.shape},
                       {"scale", region.scale},
                       {"zero_point", region.zeroPoint}});
  }
  nlohmann::json manifest = {{"regions", regions}};
  // Only compiled programs have layers; an assembled program's manifest stays as it was.
  if (!program.layers.empty()) {
    nlohmann::json layers = nlohmann::json::array();
    for (const ProgramLayer& layer : program.layers) {
      nlohmann::json ranges = nlohmann::json::array();
      for (const InstructionRange& range : layer.ranges) {
        ranges.push_back({{"first", range.first}, {"count", range.count}});
      }
      layers.push_back({{"name", layer.name}, {"ranges", ranges}});
    }
    manifest["layers"] = layers;
  }
  return manifest;
}

std::vector<ProgramLayer> layersFromJson(const nlohmann::json& json, std::string_view source) {
  std::vector<ProgramLayer> layers;
  if (!json.is_array()) {
    fail("{}: manifest 'layers' must be an array", source);
  }
  for (const auto& entry : json) {
    if (!entry.is_object() || entry.size() != 2 || !entry.contains("name") ||
        !entry.contains("ranges") || !entry["ranges"].is_array()) {
      fail("{}: manifest layer entries need exactly the keys 'name' and 'ranges' (an array)",
           source);
    }
    ProgramLayer layer;
    layer.name = entry.at("name").get<std::string>();
    for (const auto& range : entry["ranges"]) {
      if (!range.is_object() || range.size() != 2 || !range.contains("first") ||
          !range.contains("count")) {
        fail("{}: layer '{}': a range needs exactly the keys 'first' and 'count'", source,
             layer.name);
      }
      if (!range["first"].is_number_unsigned() || !range["count"].is_number_unsigned()) {
        fail("{}: layer '{}': 'first' and 'count' must be non-negative integers", source,
             layer.name);
      }
      layer.ranges.push_back(
          {range["first"].get<std::uint64_t>(), range["count"].get<std::uint64_t>()});
    }
    layers.push_back(std::move(layer));
  }
  return layers;
}

struct Manifest {
  std::vector<Region> regions;
  std::vector<ProgramLayer> layers;
};

/// Region `index`'s field `key` as a non-negative integer. A JSON float or negative number is
/// refused here: nlohmann's conversion of 2.4e97 to an integer is undefined behaviour.
std::uint64_t unsignedField(const nlohmann::json& entry, const char* key, std::string_view source,
                            std::size_t index) {
  const nlohmann::json& value = entry.at(key);
  if (!value.is_number_unsigned()) {
    fail("{}: malformed manifest region {}: '{}' must be a non-negative integer", source, index,
         key);
  }
  return value.get<std::uint64_t>();
}

/// Region `index`'s field `key` (or its elements, for an array) as integers, likewise.
std::int64_t integerValue(const nlohmann::json& value, const char* key, std::string_view source,
                          std::size_t index) {
  if (!value.is_number_integer()) {
    fail("{}: malformed manifest region {}: '{}' must hold integers", source, index, key);
  }
  return value.get<std::int64_t>();
}

Manifest manifestFromJson(std::string_view text, std::string_view source) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail("{}: manifest section is not valid JSON: {}", source, jsonErrorText(e.what()));
  }
  Manifest manifest;
  std::vector<Region>& regions = manifest.regions;
  std::size_t index = 0;  // of the region being read, from 1 (0: not reading regions yet)
  try {
    const bool hasLayers = json.is_object() && json.contains("layers");
    if (!json.is_object() || json.size() != (hasLayers ? 2U : 1U) || !json.contains("regions") ||
        !json["regions"].is_array()) {
      fail("{}: manifest must be an object with one 'regions' array and optionally 'layers'",
           source);
    }
    if (hasLayers) {
      manifest.layers = layersFromJson(json["layers"], source);
    }
    for (const auto& entry : json["regions"]) {
      ++index;
      if (!entry.is_object() || entry.size() != 8) {
        fail("{}: manifest region entries need exactly the 8 documented keys", source);
      }
      Region region;
      region.name = entry.at("name").get<std::string>();
      const auto kind = parseRegionKind(entry.at("kind").get<std::string>());
      if (!kind) {
        fail("{}: region '{}' has unknown kind '{}'", source, region.name,
             entry.at("kind").get<std::string>());
      }
      region.kind = *kind;
      region.base = unsignedField(entry, "base", source, index);
      region.size = unsignedField(entry, "size", source, index);
      region.dtype = entry.at("dtype").get<std::string>();
      if (!entry.at("shape").is_array()) {
        fail("{}: malformed manifest region {}: 'shape' must be an array", source, index);
      }
      for (const auto& dim : entry.at("shape")) {
        region.shape.push_back(integerValue(dim, "shape", source, index));
      }
      region.scale = entry.at("scale").get<double>();
      region.zeroPoint = integerValue(entry.at("zero_point"), "zero_point", source, index);
      regions.push_back(std::move(region));
    }
  } catch (const nlohmann::json::exception& e) {
    if (index == 0) {
      fail("{}: malformed manifest: {}", source, jsonErrorText(e.what()));
    }
    fail("{}: malformed manifest region {}: {}", source, index, jsonErrorText(e.what()));
  }
  return manifest;
}

}  // namespace

std::vector<std::uint8_t> serializeProgram(const Program& program) {
  validateProgram(program, "program");
  struct Section {
    SectionType type;
    std::vector<std::uint8_t> bytes;
  };
  std::vector<Section> sections;
  const std::string config = toYaml(program.config);
  sections.push_back({SectionType::Config, {config.begin(), config.end()}});
  sections.push_back({SectionType::Code, encodeStream(program.instructions)});
  const std::string manifest = manifestToJson(program).dump();
  sections.push_back({SectionType::Manifest, {manifest.begin(), manifest.end()}});
  for (const DdrSegment& segment : program.segments) {
    std::vector<std::uint8_t> bytes(8);
    putU64(bytes, 0, segment.address);
    bytes.insert(bytes.end(), segment.bytes.begin(), segment.bytes.end());
    sections.push_back({SectionType::Segment, std::move(bytes)});
  }

  std::size_t offset = kHeaderBytes + sections.size() * kSectionEntryBytes;
  std::size_t total = offset;
  for (const Section& section : sections) {
    total += section.bytes.size();
  }
  std::vector<std::uint8_t> out(total, 0);
  std::copy(kMagic.begin(), kMagic.end(), out.begin());
  putU32(out, 8, kVersion);
  putU64(out, 16, total);
  putU32(out, 24, static_cast<std::uint32_t>(sections.size()));
  putU64(out, 32, program.codeAddress);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    const std::size_t entry = kHeaderBytes + i * kSectionEntryBytes;
    putU32(out, entry, static_cast<std::uint32_t>(sections[i].type));
    putU64(out, entry + 8, offset);
    putU64(out, entry + 16, sections[i].bytes.size());
    std::copy(sections[i].bytes.begin(), sections[i].bytes.end(),
              out.begin() + static_cast<std::ptrdiff_t>(offset));
    offset += sections[i].bytes.size();
  }
  putU32(out, kCrcOffset, crc32(out));
  return out;
}

Program parseProgram(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (bytes.size() < kHeaderBytes) {
    fail("{}: truncated program file: {} bytes, the header alone needs {}", source, bytes.size(),
         kHeaderBytes);
  }
  if (!std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) {
    fail("{}: not an NPU program file (bad magic)", source);
  }
  const std::uint32_t version = getU32(bytes, 8);
  if (version != kVersion) {
    fail("{}: unsupported program format version {} (this build reads {})", source, version,
         kVersion);
  }
  const std::uint64_t declaredSize = getU64(bytes, 16);
  if (declaredSize != bytes.size()) {
    fail("{}: file is {} bytes but its header says {} (truncated or padded)", source, bytes.size(),
         declaredSize);
  }
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
  putU32(copy, kCrcOffset, 0);
  const std::uint32_t storedCrc = getU32(bytes, kCrcOffset);
  const std::uint32_t actualCrc = crc32(copy);
  if (storedCrc != actualCrc) {
    fail("{}: CRC-32 mismatch (stored 0x{:08x}, computed 0x{:08x}): the file is corrupted", source,
         storedCrc, actualCrc);
  }
  if (getU32(bytes, 28) != 0 || getU64(bytes, 40) != 0) {
    fail("{}: reserved header fields are not zero", source);
  }
  const std::uint32_t sectionCount = getU32(bytes, 24);
  if (sectionCount > kMaxSections ||
      kHeaderBytes + std::uint64_t{sectionCount} * kSectionEntryBytes > bytes.size()) {
    fail("{}: section table of {} entries does not fit in the file", source, sectionCount);
  }
  const std::uint64_t dataStart = kHeaderBytes + std::uint64_t{sectionCount} * kSectionEntryBytes;

  Program program;
  program.codeAddress = getU64(bytes, 32);
  bool haveConfig = false;
  bool haveCode = false;
  bool haveManifest = false;
  std::span<const std::uint8_t> code;
  std::string manifest;
  std::uint64_t expectedOffset = dataStart;
  for (std::uint32_t i = 0; i < sectionCount; ++i) {
    const std::size_t entry = kHeaderBytes + i * kSectionEntryBytes;
    const std::uint32_t type = getU32(bytes, entry);
    const std::uint64_t offset = getU64(bytes, entry + 8);
    const std::uint64_t size = getU64(bytes, entry + 16);
    if (getU32(bytes, entry + 4) != 0) {
      fail("{}: section {}: reserved field is not zero", source, i);
    }
    // Sections are stored back to back in table order; anything else is a damaged table.
    if (offset != expectedOffset || size > bytes.size() - offset) {
      fail(
          "{}: section {} [offset {}, size {}] does not follow the previous section inside the "
          "file ({} bytes)",
          source, i, offset, size, bytes.size());
    }
    expectedOffset = offset + size;
    const auto body = bytes.subspan(offset, size);
    switch (static_cast<SectionType>(type)) {
      case SectionType::Config:
        if (haveConfig) {
          fail("{}: more than one config section", source);
        }
        haveConfig = true;
        program.config = parseNpuConfig(std::string(body.begin(), body.end()),
                                        std::string(source) + " (config section)");
        break;
      case SectionType::Code:
        if (haveCode) {
          fail("{}: more than one code section", source);
        }
        haveCode = true;
        code = body;
        break;
      case SectionType::Manifest:
        if (haveManifest) {
          fail("{}: more than one manifest section", source);
        }
        haveManifest = true;
        manifest.assign(body.begin(), body.end());
        break;
      case SectionType::Segment: {
        if (size < 8) {
          fail("{}: section {}: DDR segment shorter than its 8-byte address", source, i);
        }
        DdrSegment segment;
        segment.address = getU64(body, 0);
        segment.bytes.assign(body.begin() + 8, body.end());
        program.segments.push_back(std::move(segment));
        break;
      }
      default:
        fail("{}: section {} has unknown type {}", source, i, type);
    }
  }
  if (expectedOffset != bytes.size()) {
    fail("{}: {} bytes after the last section", source, bytes.size() - expectedOffset);
  }
  if (!haveConfig || !haveCode || !haveManifest) {
    fail("{}: missing the {} section", source,
         !haveConfig ? "config" : (!haveCode ? "code" : "manifest"));
  }
  try {
    program.instructions = decodeStream(code);
  } catch (const Error& e) {
    fail("{}: code section: {}", source, e.what());
  }
  Manifest parsed = manifestFromJson(manifest, source);
  program.regions = std::move(parsed.regions);
  program.layers = std::move(parsed.layers);
  validateProgram(program, source);
  return program;
}

void writeProgramFile(const std::filesystem::path& path, const Program& program) {
  writeBinaryFile(path, serializeProgram(program));
}

Program readProgramFile(const std::filesystem::path& path) {
  return parseProgram(readBinaryFile(path), path.string());
}

}  // namespace npu::isa
