// Program-level checks shared by the assembler, the file reader and the file writer.
#include "npu/isa/program.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "npu/isa/encoding.h"
#include "npu/support/error.h"

namespace npu::isa {
namespace {

constexpr std::array kRegionKindNames = {"program", "weights", "input", "output", "scratch"};

/// Whether `text` is printable UTF-8 (names go into the JSON manifest and into messages).
bool isPrintableUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = 0;
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) {
        return false;
      }
      length = 1;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      length = 2;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      length = 4;
    } else {
      return false;
    }
    if (i + length > text.size()) {
      return false;
    }
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) {
        return false;
      }
    }
    // The second byte's narrower ranges (Unicode Table 3-7): no overlong forms, surrogates or
    // code points above U+10FFFF; and no C1 controls (U+0080..U+009F).
    const auto second = static_cast<unsigned char>(length > 1 ? text[i + 1] : 0);
    if ((c == 0xC2 && second < 0xA0) || (c == 0xE0 && second < 0xA0) ||
        (c == 0xED && second > 0x9F) || (c == 0xF0 && second < 0x90) ||
        (c == 0xF4 && second > 0x8F)) {
      return false;
    }
    i += length;
  }
  return true;
}

struct Range {
  std::uint64_t begin;
  std::uint64_t end;
  std::string what;
};

/// The manifest's layer table: printable names, non-empty ranges ascending and not touching
/// inside the stream, and no instruction in two layers (so there are at most as many ranges as
/// instructions, which bounds the table).
void validateLayers(const Program& program, std::string_view source) {
  const std::uint64_t count = program.instructions.size();
  std::vector<const std::string*> owner(program.instructions.size(), nullptr);
  std::uint64_t ranges = 0;
  for (const ProgramLayer& layer : program.layers) {
    if (layer.name.empty()) {
      fail("{}: a manifest layer has an empty name", source);
    }
    if (!isPrintableUtf8(layer.name)) {
      fail("{}: a manifest layer's name is not printable UTF-8", source);
    }
    if (layer.ranges.empty()) {
      fail("{}: layer '{}' has no instruction range", source, layer.name);
    }
    ranges += layer.ranges.size();
    if (ranges > count) {
      fail("{}: the manifest lists more layer ranges than the program has instructions ({})",
           source, count);
    }
    std::uint64_t previousEnd = 0;
    for (std::size_t r = 0; r < layer.ranges.size(); ++r) {
      const InstructionRange& range = layer.ranges[r];
      if (range.count == 0 || range.first >= count || range.count > count - range.first) {
        fail("{}: layer '{}': instruction range [{}, +{}) is empty or outside the {} instructions",
             source, layer.name, range.first, range.count, count);
      }
      if (r > 0 && range.first <= previousEnd) {
        fail(
            "{}: layer '{}': instruction range {} starts at {}, not after the previous one (ends "
            "at {})",
            source, layer.name, r, range.first, previousEnd);
      }
      previousEnd = range.first + range.count;
      for (std::uint64_t k = range.first; k < previousEnd; ++k) {
        if (owner[k] != nullptr) {
          fail("{}: instruction {} is in layer '{}' and in layer '{}'", source, k, *owner[k],
               layer.name);
        }
        owner[k] = &layer.name;
      }
    }
  }
}

}  // namespace

Region Program::codeRegion() const {
  Region region;
  region.name = "program";
  region.kind = RegionKind::Program;
  region.base = codeAddress;
  region.size = instructions.size() * kWordBytes;
  return region;
}

std::string_view regionKindName(RegionKind kind) {
  return kRegionKindNames.at(static_cast<std::size_t>(kind));
}

std::optional<RegionKind> parseRegionKind(std::string_view name) {
  for (std::size_t i = 0; i < kRegionKindNames.size(); ++i) {
    if (kRegionKindNames[i] == name) {
      return static_cast<RegionKind>(i);
    }
  }
  return std::nullopt;
}

void validateProgram(const Program& program, std::string_view source) {
  if (program.instructions.empty()) {
    fail("{}: the program has no instructions (it must end with END)", source);
  }
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const std::string problem = validate(program.instructions[i]);
    if (!problem.empty()) {
      fail("{}: instruction {}: {}", source, i, problem);
    }
    const bool isEnd = std::holds_alternative<End>(program.instructions[i]);
    const bool isLast = i + 1 == program.instructions.size();
    if (isEnd && !isLast) {
      fail("{}: instruction {}: END before the last instruction ({} follow)", source, i,
           program.instructions.size() - i - 1);
    }
    if (!isEnd && isLast) {
      fail("{}: the last instruction ({}) is not END", source, i);
    }
  }

  const auto ddrBytes = static_cast<std::uint64_t>(program.config.ddrBytes);
  const Region code = program.codeRegion();
  if (code.base > ddrBytes || code.size > ddrBytes - code.base) {
    fail("{}: the instruction stream [0x{:x}, 0x{:x}) lies outside DDR ({} bytes)", source,
         code.base, code.base + code.size, ddrBytes);
  }

  // Segments: inside DDR, disjoint from each other and from the code.
  std::vector<Range> placed{{code.base, code.base + code.size, "the instruction stream"}};
  for (std::size_t i = 0; i < program.segments.size(); ++i) {
    const DdrSegment& segment = program.segments[i];
    if (segment.bytes.empty()) {
      fail("{}: DDR segment {} at 0x{:x} is empty", source, i, segment.address);
    }
    if (segment.address > ddrBytes || segment.bytes.size() > ddrBytes - segment.address) {
      fail("{}: DDR segment {} [0x{:x}, +{}) lies outside DDR ({} bytes)", source, i,
           segment.address, segment.bytes.size(), ddrBytes);
    }
    placed.push_back({segment.address, segment.address + segment.bytes.size(),
                      fmt::format("DDR segment {}", i)});
  }
  std::vector<Range> regions{{code.base, code.base + code.size, "the instruction stream"}};
  for (const Region& region : program.regions) {
    if (region.name.empty()) {
      fail("{}: a manifest region has an empty name", source);
    }
    if (!isPrintableUtf8(region.name)) {
      fail("{}: a manifest region's name is not printable UTF-8", source);
    }
    if (region.kind == RegionKind::Program) {
      fail("{}: region '{}': kind 'program' is implied by the code address, not listed", source,
           region.name);
    }
    if (region.size == 0) {
      fail("{}: region '{}' has size 0", source, region.name);
    }
    if (region.base > ddrBytes || region.size > ddrBytes - region.base) {
      fail("{}: region '{}' [0x{:x}, +{}) lies outside DDR ({} bytes)", source, region.name,
           region.base, region.size, ddrBytes);
    }
    static constexpr std::array kDtypes = {"bytes", "int8", "uint8", "int32", "float32"};
    if (std::find(kDtypes.begin(), kDtypes.end(), region.dtype) == kDtypes.end()) {
      fail("{}: region '{}' has unknown dtype '{}'", source, region.name, region.dtype);
    }
    if (std::any_of(region.shape.begin(), region.shape.end(),
                    [](std::int64_t d) { return d <= 0; })) {
      fail("{}: region '{}' has a non-positive dimension in its shape", source, region.name);
    }
    for (const Region& other : program.regions) {
      if (&other != &region && other.name == region.name) {
        fail("{}: region name '{}' is used twice", source, region.name);
      }
    }
    regions.push_back({region.base, region.base + region.size, "region '" + region.name + "'"});
  }
  for (const std::vector<Range>* ranges : {&placed, &regions}) {
    std::vector<Range> sorted = *ranges;
    std::sort(sorted.begin(), sorted.end(),
              [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < sorted.size(); ++i) {
      if (sorted[i].begin < sorted[i - 1].end && sorted[i].begin < sorted[i].end &&
          sorted[i - 1].begin < sorted[i - 1].end) {
        fail("{}: {} [0x{:x}, 0x{:x}) overlaps {} [0x{:x}, 0x{:x})", source, sorted[i].what,
             sorted[i].begin, sorted[i].end, sorted[i - 1].what, sorted[i - 1].begin,
             sorted[i - 1].end);
      }
    }
  }
  validateLayers(program, source);
}

std::vector<std::int64_t> instructionLayers(const Program& program) {
  std::vector<std::int64_t> layer(program.instructions.size(), -1);
  for (std::size_t l = 0; l < program.layers.size(); ++l) {
    for (const InstructionRange& range : program.layers[l].ranges) {
      const std::uint64_t size = program.instructions.size();
      const std::uint64_t end = range.first >= size
                                    ? range.first
                                    : range.first + std::min(range.count, size - range.first);
      for (std::uint64_t k = range.first; k < end; ++k) {
        layer[k] = static_cast<std::int64_t>(l);
      }
    }
  }
  return layer;
}

}  // namespace npu::isa
