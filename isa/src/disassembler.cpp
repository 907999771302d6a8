// Program -> canonical text, the exact inverse of the assembler on canonical input (a compiled
// program's layer table comes out as comments, which the assembler skips).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "npu/isa/assembly.h"

namespace npu::isa {
namespace {

constexpr std::size_t kDataBytesPerLine = 32;

std::string formatValue(const FieldInfo& field, std::int64_t value) {
  if (field.name.ends_with("addr")) {
    return fmt::format("0x{:x}", value);
  }
  return fmt::format("{}", value);
}

}  // namespace

std::string formatInstruction(const Instruction& instruction) {
  const OpcodeInfo info = *findOpcode(static_cast<unsigned>(opcodeOf(instruction)));
  std::string line(info.mnemonic);
  const std::vector<std::int64_t> values = fieldValues(instruction);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] != 0) {
      line += fmt::format(" {}={}", info.fields[i].name, formatValue(info.fields[i], values[i]));
    }
  }
  return line;
}

std::string disassemble(const Program& program) {
  std::string text =
      fmt::format(".hw {}\n.code 0x{:x}\n", program.config.name, program.codeAddress);
  for (const Region& region : program.regions) {
    text += fmt::format(".region {} kind={} base=0x{:x} size={}", region.name,
                        regionKindName(region.kind), region.base, region.size);
    if (region.dtype != "bytes") {
      text += fmt::format(" dtype={}", region.dtype);
    }
    if (!region.shape.empty()) {
      text += fmt::format(" shape={}", fmt::join(region.shape, "x"));
    }
    if (region.scale != 0.0) {
      text += fmt::format(" scale={}", region.scale);
    }
    if (region.zeroPoint != 0) {
      text += fmt::format(" zp={}", region.zeroPoint);
    }
    text += '\n';
  }
  for (const DdrSegment& segment : program.segments) {
    for (std::size_t at = 0; at < segment.bytes.size(); at += kDataBytesPerLine) {
      const std::size_t n = std::min(kDataBytesPerLine, segment.bytes.size() - at);
      text += fmt::format(".data 0x{:x} ", segment.address + at);
      for (std::size_t i = 0; i < n; ++i) {
        text += fmt::format("{:02x}", segment.bytes[at + i]);
      }
      text += '\n';
    }
  }
  // A comment before the first instruction of every layer range: the assembler skips it, so the
  // text still assembles (to the program without its layer table).
  std::vector<std::string> comments(program.instructions.size());
  for (const ProgramLayer& layer : program.layers) {
    for (std::size_t r = 0; r < layer.ranges.size(); ++r) {
      const InstructionRange& range = layer.ranges[r];
      if (range.first >= comments.size()) {
        continue;
      }
      comments[range.first] = fmt::format(
          "; layer '{}' (instructions {}..{}{})\n", layer.name, range.first,
          range.first + range.count - 1,
          layer.ranges.size() > 1 ? fmt::format(", range {} of {}", r + 1, layer.ranges.size())
                                  : std::string());
    }
  }
  for (std::size_t k = 0; k < program.instructions.size(); ++k) {
    text += comments[k];
    text += formatInstruction(program.instructions[k]);
    text += '\n';
  }
  return text;
}

}  // namespace npu::isa
