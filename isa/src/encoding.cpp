// Table-driven bit packing: the only place where instruction bits are shifted and masked.
#include "npu/isa/encoding.h"

#include <algorithm>

#include "npu/support/error.h"

namespace npu::isa {
namespace {

std::int64_t toValue(std::uint64_t raw, const FieldInfo& field) {
  if (field.signedness == Signedness::Signed && field.width < 64 &&
      ((raw >> (field.width - 1)) & 1U) != 0) {
    return static_cast<std::int64_t>(raw) - (std::int64_t{1} << field.width);
  }
  return static_cast<std::int64_t>(raw);
}

std::uint64_t toRaw(std::int64_t value, unsigned width) {
  const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return static_cast<std::uint64_t>(value) & mask;
}

}  // namespace

std::uint64_t readBits(const InstructionWord& word, unsigned offset, unsigned width) {
  std::uint64_t value = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = offset + i;
    value |= static_cast<std::uint64_t>((word[bit / 8] >> (bit % 8)) & 1U) << i;
  }
  return value;
}

void writeBits(InstructionWord& word, unsigned offset, unsigned width, std::uint64_t value) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned bit = offset + i;
    const auto mask = static_cast<std::uint8_t>(1U << (bit % 8));
    if (((value >> i) & 1U) != 0) {
      word[bit / 8] |= mask;
    } else {
      word[bit / 8] &= static_cast<std::uint8_t>(~mask);
    }
  }
}

InstructionWord encode(const Instruction& instruction) {
  const std::string problem = validate(instruction);
  const OpcodeInfo info = *findOpcode(static_cast<unsigned>(opcodeOf(instruction)));
  if (!problem.empty()) {
    fail("cannot encode {}: {}", info.mnemonic, problem);
  }
  InstructionWord word{};
  writeBits(word, 0, kOpcodeBits, static_cast<unsigned>(info.opcode));
  const std::vector<std::int64_t> values = fieldValues(instruction);
  for (std::size_t i = 0; i < values.size(); ++i) {
    writeBits(word, info.fields[i].offset, info.fields[i].width,
              toRaw(values[i], info.fields[i].width));
  }
  return word;
}

Instruction decode(const InstructionWord& word, std::size_t index) {
  const auto code = static_cast<unsigned>(readBits(word, 0, kOpcodeBits));
  const std::optional<OpcodeInfo> info = findOpcode(code);
  if (!info) {
    fail("word {}: illegal opcode 0x{:x}", index, code);
  }
  // Every bit that no field covers is reserved and must be zero.
  std::array<bool, kWordBits> covered{};
  std::fill_n(covered.begin(), kOpcodeBits, true);
  std::vector<std::int64_t> values;
  for (const FieldInfo& field : info->fields) {
    std::fill_n(covered.begin() + field.offset, field.width, true);
    values.push_back(toValue(readBits(word, field.offset, field.width), field));
  }
  for (unsigned bit = 0; bit < kWordBits; ++bit) {
    if (!covered[bit] && ((word[bit / 8] >> (bit % 8)) & 1U) != 0) {
      fail("word {}: {} has reserved bit {} set", index, info->mnemonic, bit);
    }
  }
  Instruction instruction = makeInstruction(info->opcode, values);
  const std::string problem = validate(instruction);
  if (!problem.empty()) {
    fail("word {}: {}: {}", index, info->mnemonic, problem);
  }
  return instruction;
}

std::vector<std::uint8_t> encodeStream(std::span<const Instruction> instructions) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(instructions.size() * kWordBytes);
  for (const Instruction& instruction : instructions) {
    const InstructionWord word = encode(instruction);
    bytes.insert(bytes.end(), word.begin(), word.end());
  }
  return bytes;
}

std::vector<Instruction> decodeStream(std::span<const std::uint8_t> bytes) {
  if (bytes.size() % kWordBytes != 0) {
    fail("instruction stream of {} bytes is not a whole number of {}-byte words", bytes.size(),
         kWordBytes);
  }
  std::vector<Instruction> instructions;
  instructions.reserve(bytes.size() / kWordBytes);
  for (std::size_t i = 0; i < bytes.size() / kWordBytes; ++i) {
    InstructionWord word{};
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(i * kWordBytes), kWordBytes,
                word.begin());
    instructions.push_back(decode(word, i));
  }
  return instructions;
}

}  // namespace npu::isa
