// Encoder/decoder: round trips over random legal instructions, and exact rejection messages.
#include "npu/isa/encoding.h"

#include <gtest/gtest.h>

#include <set>

#include "npu/isa/assembly.h"
#include "npu/support/error.h"
#include "random_instruction.h"

namespace npu::isa {
namespace {

std::string decodeError(const InstructionWord& word, std::size_t index) {
  try {
    decode(word, index);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Encoding, TableFieldsDoNotOverlapAndFitTheWord) {
  for (const OpcodeInfo& info : opcodeTable()) {
    std::set<unsigned> used;
    for (unsigned bit = 0; bit < kOpcodeBits; ++bit) {
      used.insert(bit);
    }
    for (const FieldInfo& field : info.fields) {
      ASSERT_GT(field.width, 0U) << info.mnemonic << "." << field.name;
      ASSERT_LE(field.offset + field.width, kWordBits) << info.mnemonic << "." << field.name;
      for (unsigned bit = field.offset; bit < field.offset + field.width; ++bit) {
        EXPECT_TRUE(used.insert(bit).second)
            << info.mnemonic << "." << field.name << " bit " << bit;
      }
      // The legal range must be representable in the field.
      const std::int64_t lowest =
          field.signedness == Signedness::Signed ? -(std::int64_t{1} << (field.width - 1)) : 0;
      const std::int64_t highest = field.signedness == Signedness::Signed
                                       ? (std::int64_t{1} << (field.width - 1)) - 1
                                       : (std::int64_t{1} << field.width) - 1;
      EXPECT_GE(field.lowest, lowest) << info.mnemonic << "." << field.name;
      EXPECT_LE(field.highest, highest) << info.mnemonic << "." << field.name;
      EXPECT_LE(field.lowest, field.highest) << info.mnemonic << "." << field.name;
    }
  }
}

TEST(Encoding, RandomInstructionsRoundTripThroughWordsAndText) {
  std::mt19937_64 rng(20261121);
  constexpr int kCount = 20000;
  for (int i = 0; i < kCount; ++i) {
    const Instruction original = testing::randomInstruction(rng);
    ASSERT_EQ(validate(original), "") << formatInstruction(original);
    const InstructionWord word = encode(original);
    const Instruction decoded = decode(word, static_cast<std::size_t>(i));
    ASSERT_EQ(decoded, original) << formatInstruction(original);
    const std::string text = formatInstruction(original);
    ASSERT_EQ(parseInstruction(text, "test"), original) << text;
    ASSERT_EQ(formatInstruction(decoded), text);
  }
}

TEST(Encoding, EveryFieldLandsAtItsTableBits) {
  // Setting one field to all ones must set exactly that field's bits in the word.
  for (const OpcodeInfo& info : opcodeTable()) {
    for (std::size_t f = 0; f < info.fields.size(); ++f) {
      std::vector<std::int64_t> values(info.fields.size(), 0);
      for (std::size_t g = 0; g < info.fields.size(); ++g) {
        values[g] = info.fields[g].lowest > 0 ? info.fields[g].lowest : 0;
      }
      const FieldInfo& field = info.fields[f];
      values[f] = field.signedness == Signedness::Signed ? -1 : field.highest;
      Instruction instruction = makeInstruction(info.opcode, values);
      if (!validate(instruction).empty()) {
        continue;  // a cross-field rule forbids this combination; covered by random tests
      }
      InstructionWord base{};
      {
        values[f] = field.lowest > 0 ? field.lowest : 0;
        base = encode(makeInstruction(info.opcode, values));
      }
      const InstructionWord word = encode(instruction);
      for (unsigned bit = 0; bit < kWordBits; ++bit) {
        const bool differs = ((word[bit / 8] ^ base[bit / 8]) >> (bit % 8) & 1U) != 0;
        if (differs) {
          EXPECT_TRUE(bit >= field.offset && bit < field.offset + field.width)
              << info.mnemonic << "." << field.name << " changed bit " << bit;
        }
      }
    }
  }
}

TEST(Encoding, RejectsIllegalOpcodeNamingTheWord) {
  InstructionWord word{};
  word[0] = 0x0F;
  EXPECT_EQ(decodeError(word, 17), "word 17: illegal opcode 0xf");
  word[0] = 0x08;
  EXPECT_EQ(decodeError(word, 0), "word 0: illegal opcode 0x8");
}

TEST(Encoding, RejectsReservedBits) {
  InstructionWord word{};  // END with a stray bit
  word[31] = 0x80;
  EXPECT_EQ(decodeError(word, 3), "word 3: END has reserved bit 255 set");

  InstructionWord load = encode(Load{.buf = 0, .y_size = 1, .x_size = 1, .c_bytes = 1});
  load[0] |= 0x10;  // pop_prev: load has no previous unit
  EXPECT_EQ(decodeError(load, 5), "word 5: LOAD has reserved bit 4 set");

  InstructionWord eltwise = encode(Eltwise{.count = 1});
  eltwise[200 / 8] |= 1U << (200 % 8);
  EXPECT_EQ(decodeError(eltwise, 9), "word 9: ELTWISE has reserved bit 200 set");
}

TEST(Encoding, RejectsIllegalFieldValues) {
  Conv conv{.out_h = 1, .out_w = 1, .in_w = 1, .in_c = 1, .out_c = 1};
  conv.kh = conv.kw = conv.sh = conv.sw = conv.dh = conv.dw = 1;
  InstructionWord word = encode(conv);
  word[188 / 8] &= static_cast<std::uint8_t>(~(0xFU << (188 % 8)));  // kh = 0
  EXPECT_EQ(decodeError(word, 2), "word 2: CONV: field 'kh' = 0 is out of range [1, 15]");

  InstructionWord sync = encode(Sync{.unit = 1});
  sync[1] |= 0x03;  // unit = 3
  EXPECT_EQ(decodeError(sync, 4), "word 4: SYNC: field 'unit' = 3 is out of range [0, 2]");
}

TEST(Encoding, EncodeRejectsIllegalInstructions) {
  try {
    encode(Load{.buf = 3, .y_size = 1, .x_size = 1, .c_bytes = 1});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot encode LOAD: field 'buf' = 3 is out of range [0, 2]");
  }
}

TEST(Encoding, StreamOfPartialWordIsRejected) {
  const std::vector<std::uint8_t> bytes(40, 0);
  try {
    decodeStream(bytes);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "instruction stream of 40 bytes is not a whole number of 32-byte words");
  }
}

}  // namespace
}  // namespace npu::isa
