// Text -> Program: directives (.hw, .code, .region, .data) and one instruction per line.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

#include "npu/isa/assembly.h"
#include "npu/support/error.h"
#include "npu/support/file_io.h"

namespace npu::isa {
namespace {

std::vector<std::string_view> splitWords(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      ++i;
    }
    if (i > start) {
      words.push_back(line.substr(start, i - start));
    }
  }
  return words;
}

std::string_view stripComment(std::string_view line) {
  const std::size_t cut = line.find_first_of(";#");
  return cut == std::string_view::npos ? line : line.substr(0, cut);
}

std::int64_t parseInteger(std::string_view text, std::string_view where, std::string_view what) {
  bool negative = false;
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '-') {
    negative = true;
    digits.remove_prefix(1);
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  std::uint64_t magnitude = 0;
  const auto [end, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      magnitude > (std::uint64_t{1} << 62)) {
    fail("{}: {}: '{}' is not an integer", where, what, text);
  }
  return negative ? -static_cast<std::int64_t>(magnitude) : static_cast<std::int64_t>(magnitude);
}

double parseReal(std::string_view text, std::string_view where, std::string_view what) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    fail("{}: {}: '{}' is not a number", where, what, text);
  }
  return value;
}

std::pair<std::string_view, std::string_view> splitKeyValue(std::string_view word,
                                                            std::string_view where) {
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size()) {
    fail("{}: expected key=value, got '{}'", where, word);
  }
  return {word.substr(0, eq), word.substr(eq + 1)};
}

Region parseRegion(const std::vector<std::string_view>& words, std::string_view where) {
  if (words.size() < 2) {
    fail("{}: .region needs a name", where);
  }
  Region region;
  region.name = std::string(words[1]);
  bool haveKind = false;
  bool haveBase = false;
  bool haveSize = false;
  std::vector<std::string_view> seen;
  for (std::size_t i = 2; i < words.size(); ++i) {
    const auto [key, value] = splitKeyValue(words[i], where);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      fail("{}: .region key '{}' given twice", where, key);
    }
    seen.push_back(key);
    if (key == "kind") {
      const auto kind = parseRegionKind(value);
      if (!kind) {
        fail("{}: unknown region kind '{}' (weights, input, output, scratch)", where, value);
      }
      region.kind = *kind;
      haveKind = true;
    } else if (key == "base") {
      region.base = static_cast<std::uint64_t>(parseInteger(value, where, "base"));
      haveBase = true;
    } else if (key == "size") {
      region.size = static_cast<std::uint64_t>(parseInteger(value, where, "size"));
      haveSize = true;
    } else if (key == "dtype") {
      region.dtype = std::string(value);
    } else if (key == "shape") {
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t x = std::min(value.find('x', start), value.size());
        region.shape.push_back(parseInteger(value.substr(start, x - start), where, "shape"));
        start = x + 1;
      }
    } else if (key == "scale") {
      region.scale = parseReal(value, where, "scale");
    } else if (key == "zp") {
      region.zeroPoint = parseInteger(value, where, "zp");
    } else {
      fail("{}: unknown .region key '{}' (kind, base, size, dtype, shape, scale, zp)", where, key);
    }
  }
  if (!haveKind || !haveBase || !haveSize) {
    fail("{}: .region needs kind=, base= and size=", where);
  }
  return region;
}

std::vector<std::uint8_t> parseHex(std::string_view text, std::string_view where) {
  if (text.size() % 2 != 0) {
    fail("{}: .data hex string has an odd number of digits", where);
  }
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
    if (ec != std::errc() || end != text.data() + i + 2) {
      fail("{}: .data: '{}' is not a hex byte", where, text.substr(i, 2));
    }
    bytes.push_back(static_cast<std::uint8_t>(value));
  }
  return bytes;
}

}  // namespace

Instruction parseInstruction(std::string_view line, std::string_view where) {
  const std::vector<std::string_view> words = splitWords(line);
  if (words.empty()) {
    fail("{}: expected an instruction", where);
  }
  const std::optional<OpcodeInfo> info = findMnemonic(words[0]);
  if (!info) {
    fail("{}: unknown mnemonic '{}'", where, words[0]);
  }
  std::vector<std::int64_t> values(info->fields.size(), 0);
  std::vector<bool> given(info->fields.size(), false);
  for (std::size_t w = 1; w < words.size(); ++w) {
    const auto [key, value] = splitKeyValue(words[w], where);
    // A named copy: clang 14 cannot capture a structured binding.
    const auto& name = key;
    const auto field = std::find_if(info->fields.begin(), info->fields.end(),
                                    [&name](const FieldInfo& f) { return f.name == name; });
    if (field == info->fields.end()) {
      fail("{}: {} has no field '{}'", where, info->mnemonic, key);
    }
    const auto index = static_cast<std::size_t>(field - info->fields.begin());
    if (given[index]) {
      fail("{}: {}: field '{}' given twice", where, info->mnemonic, key);
    }
    given[index] = true;
    values[index] = parseInteger(value, where, fmt::format("{}.{}", info->mnemonic, key));
  }
  Instruction instruction = makeInstruction(info->opcode, values);
  // Report fields that were left out and default to an illegal zero by name.
  for (std::size_t i = 0; i < info->fields.size(); ++i) {
    const FieldInfo& field = info->fields[i];
    if (!given[i] && field.lowest > 0) {
      fail("{}: {}: field '{}' is required (range [{}, {}])", where, info->mnemonic, field.name,
           field.lowest, field.highest);
    }
  }
  const std::string problem = validate(instruction);
  if (!problem.empty()) {
    fail("{}: {}: {}", where, info->mnemonic, problem);
  }
  return instruction;
}

Program assemble(std::string_view text, std::string_view source,
                 const std::filesystem::path& baseDir) {
  Program program;
  bool haveHw = false;
  bool haveCode = false;
  std::size_t lineNumber = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t newline = std::min(text.find('\n', start), text.size());
    const std::string_view rawLine = text.substr(start, newline - start);
    start = newline + 1;
    ++lineNumber;
    const std::string where = fmt::format("{}:{}", source, lineNumber);
    const std::vector<std::string_view> words = splitWords(stripComment(rawLine));
    if (words.empty()) {
      continue;
    }
    const std::string_view head = words[0];
    if (head == ".hw") {
      if (words.size() != 2) {
        fail("{}: .hw takes one preset name or path", where);
      }
      if (haveHw) {
        fail("{}: .hw given twice", where);
      }
      try {
        program.config = loadNpuConfig(resolveConfigPath(words[1], baseDir));
      } catch (const Error& e) {
        fail("{}: {}", where, e.what());
      }
      haveHw = true;
    } else if (head == ".code") {
      if (words.size() != 2 || haveCode) {
        fail("{}: .code takes one address and appears at most once", where);
      }
      program.codeAddress = static_cast<std::uint64_t>(parseInteger(words[1], where, ".code"));
      haveCode = true;
    } else if (head == ".region") {
      program.regions.push_back(parseRegion(words, where));
    } else if (head == ".data") {
      if (words.size() != 3) {
        fail("{}: .data takes an address and a hex string", where);
      }
      const auto address = static_cast<std::uint64_t>(parseInteger(words[1], where, ".data"));
      std::vector<std::uint8_t> bytes = parseHex(words[2], where);
      if (!program.segments.empty() &&
          program.segments.back().address + program.segments.back().bytes.size() == address) {
        auto& tail = program.segments.back().bytes;
        tail.insert(tail.end(), bytes.begin(), bytes.end());
      } else {
        program.segments.push_back({address, std::move(bytes)});
      }
    } else if (head.starts_with('.')) {
      fail("{}: unknown directive '{}' (.hw, .code, .region, .data)", where, head);
    } else {
      program.instructions.push_back(parseInstruction(stripComment(rawLine), where));
    }
  }
  if (!haveHw) {
    fail("{}: missing '.hw PRESET' (the hardware the program is for)", source);
  }
  validateProgram(program, source);
  return program;
}

Program assembleFile(const std::filesystem::path& path) {
  return assemble(readTextFile(path), path.string(), path.parent_path());
}

}  // namespace npu::isa
