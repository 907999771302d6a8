// Binary encoding of instructions into fixed-width words, driven by the instruction table.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "npu/isa/instruction.h"

namespace npu::isa {

/// One encoded instruction: kWordBytes bytes, little-endian bit order.
using InstructionWord = std::array<std::uint8_t, kWordBytes>;

/// The `width` bits of `word` from bit `offset` (bit i lives in byte i / 8, bit i % 8; the
/// layout of instructions.def), as an unsigned value.
std::uint64_t readBits(const InstructionWord& word, unsigned offset, unsigned width);

/// Writes the low `width` bits of `value` into `word` from bit `offset`.
void writeBits(InstructionWord& word, unsigned offset, unsigned width, std::uint64_t value);

/// Encodes a legal instruction; throws npu::Error naming the field when it is not legal.
InstructionWord encode(const Instruction& instruction);

/// Decodes the word at position `index` of a stream. Throws npu::Error naming the word index for
/// an illegal opcode, a set reserved bit, or a field value the table does not allow.
Instruction decode(const InstructionWord& word, std::size_t index);

/// Encodes a whole stream.
std::vector<std::uint8_t> encodeStream(std::span<const Instruction> instructions);

/// Decodes a whole stream; its size must be a multiple of kWordBytes.
std::vector<Instruction> decodeStream(std::span<const std::uint8_t> bytes);

}  // namespace npu::isa
