// The instruction-word mutator: walks the .npub header and section table to the code section,
// edits its words through the ISA table's field rows, and rebuilds the container around them.
#include "npub_mutator.h"

#include <algorithm>
#include <array>
#include <limits>

#include "mutation_rng.h"
#include "npu/isa/encoding.h"
#include "npu/isa/instruction.h"
#include "npu/support/crc32.h"

namespace npu::fuzz {
namespace {

using isa::FieldInfo;
using isa::InstructionWord;
using isa::kWordBits;
using isa::kWordBytes;

// The container layout of docs/program-format.md (isa/src/program_file.cpp writes it).
constexpr std::array<std::uint8_t, 8> kMagic = {'N', 'P', 'U', 'P', 'R', 'O', 'G', 0};
constexpr std::size_t kHeaderBytes = 48;
constexpr std::size_t kSectionEntryBytes = 24;
constexpr std::size_t kCrcOffset = 12;
constexpr std::size_t kSizeOffset = 16;
constexpr std::size_t kCountOffset = 24;
constexpr std::uint32_t kCodeSection = 2;
/// Words a mutation may add: enough to overrun any queue, few enough to stay fast.
constexpr std::size_t kMaxWords = 4096;

std::uint64_t getLe(std::span<const std::uint8_t> bytes, std::size_t at, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    value |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
  }
  return value;
}

void putLe(std::vector<std::uint8_t>& bytes, std::size_t at, std::size_t width,
           std::uint64_t value) {
  for (std::size_t i = 0; i < width; ++i) {
    bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
  }
}

/// Where the code section lies: its table entry and its bytes.
struct CodeSection {
  std::size_t entry = 0;
  std::size_t offset = 0;
  std::size_t size = 0;
};

/// The first code section whose bytes lie inside the file after the section table.
std::optional<CodeSection> findCodeSection(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderBytes || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) {
    return std::nullopt;
  }
  const std::uint64_t count = getLe(bytes, kCountOffset, 4);
  const std::uint64_t dataStart = kHeaderBytes + count * kSectionEntryBytes;
  if (dataStart > bytes.size()) {
    return std::nullopt;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t entry = kHeaderBytes + static_cast<std::size_t>(i) * kSectionEntryBytes;
    const std::uint64_t offset = getLe(bytes, entry + 8, 8);
    const std::uint64_t size = getLe(bytes, entry + 16, 8);
    if (getLe(bytes, entry, 4) == kCodeSection && offset >= dataStart && offset <= bytes.size() &&
        size <= bytes.size() - offset) {
      return CodeSection{entry, static_cast<std::size_t>(offset), static_cast<std::size_t>(size)};
    }
  }
  return std::nullopt;
}

std::uint64_t widthMask(unsigned width) {
  return width >= 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << width) - 1;
}

/// The table row of a word's opcode, or nullopt for a code the table does not define.
std::optional<isa::OpcodeInfo> rowOf(const InstructionWord& word) {
  return isa::findOpcode(static_cast<unsigned>(isa::readBits(word, 0, isa::kOpcodeBits)));
}

/// A legal value of a field, drawn uniformly from its range.
std::int64_t legalValue(MutationRng& rng, const FieldInfo& field) {
  const auto span = static_cast<std::uint64_t>(field.highest - field.lowest);
  const std::uint64_t offset =
      span == std::numeric_limits<std::uint64_t>::max() ? rng.next() : rng.next() % (span + 1);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(field.lowest) + offset);
}

class WordMutator {
 public:
  WordMutator(std::vector<InstructionWord>& words, MutationRng& rng) : m_words(words), m_rng(rng) {}

  /// Applies one mutation of a kind drawn by the seed; false when that kind has nothing to edit.
  bool mutateOnce() {
    switch (m_rng.below(12)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return setField();
      case 4:
        return changeOpcode();
      case 5:
        return setReservedBit();
      case 6:
        return swapWords();
      case 7:
        return duplicateWord();
      case 8:
        return deleteWord();
      case 9:
        return moveEnd();
      case 10:
        return insertLegalWord();
      default:
        return overwriteWord();
    }
  }

 private:
  std::size_t pickWord() { return m_rng.below(m_words.size()); }

  /// One field of one word set to a boundary of its width (0, 1, max, max - 1) or of its legal
  /// range (lowest, highest and one past each), a random value within the width or the range, its
  /// value plus or minus one, or the value of the same field in another word of the same opcode.
  bool setField() {
    if (m_words.empty()) {
      return false;
    }
    InstructionWord& word = m_words[pickWord()];
    const std::optional<isa::OpcodeInfo> row = rowOf(word);
    if (!row || row->fields.empty()) {
      return false;
    }
    const FieldInfo& field = row->fields[m_rng.below(row->fields.size())];
    const std::uint64_t mask = widthMask(field.width);
    const std::uint64_t current = isa::readBits(word, field.offset, field.width);
    std::uint64_t value = 0;
    switch (m_rng.below(12)) {
      case 0:
        value = 0;
        break;
      case 1:
        value = 1;
        break;
      case 2:
        value = mask;
        break;
      case 3:
        value = mask - 1;
        break;
      case 4:
        value = static_cast<std::uint64_t>(field.lowest);
        break;
      case 5:
        value = static_cast<std::uint64_t>(field.highest);
        break;
      case 6:
        value = static_cast<std::uint64_t>(field.highest) + 1;
        break;
      case 7:
        value = static_cast<std::uint64_t>(field.lowest) - 1;
        break;
      case 8:
        value = m_rng.next();
        break;
      case 9:
        value = static_cast<std::uint64_t>(legalValue(m_rng, field));
        break;
      case 10:
        value = current + (m_rng.oneIn(2) ? 1 : mask);  // plus or minus one within the width
        break;
      default:
        value = sameFieldElsewhere(row->opcode, field).value_or(m_rng.next());
        break;
    }
    isa::writeBits(word, field.offset, field.width,
                   value & mask);  // two's complement for signed fields
    return true;
  }

  /// The field's bits in a randomly chosen other word with the same opcode, if there is one.
  std::optional<std::uint64_t> sameFieldElsewhere(isa::Opcode opcode, const FieldInfo& field) {
    std::vector<std::size_t> others;
    for (std::size_t i = 0; i < m_words.size(); ++i) {
      const std::optional<isa::OpcodeInfo> row = rowOf(m_words[i]);
      if (row && row->opcode == opcode) {
        others.push_back(i);
      }
    }
    if (others.empty()) {
      return std::nullopt;
    }
    return isa::readBits(m_words[others[m_rng.below(others.size())]], field.offset, field.width);
  }

  /// The opcode of a word replaced by another of the table (its fields now read at the new
  /// opcode's offsets) or by a code the table does not define.
  bool changeOpcode() {
    if (m_words.empty()) {
      return false;
    }
    const std::span<const isa::OpcodeInfo> table = isa::opcodeTable();
    const std::size_t codes = std::size_t{1} << isa::kOpcodeBits;
    const std::uint64_t code =
        m_rng.oneIn(8) ? table.size() + m_rng.below(codes - table.size())
                       : static_cast<std::uint64_t>(table[m_rng.below(table.size())].opcode);
    isa::writeBits(m_words[pickWord()], 0, isa::kOpcodeBits, code);
    return true;
  }

  /// A bit that no field of the word's opcode covers: reserved, so it must be rejected.
  bool setReservedBit() {
    if (m_words.empty()) {
      return false;
    }
    InstructionWord& word = m_words[pickWord()];
    const std::optional<isa::OpcodeInfo> row = rowOf(word);
    if (!row) {
      return false;
    }
    std::array<bool, kWordBits> covered{};
    for (unsigned bit = 0; bit < isa::kOpcodeBits; ++bit) {
      covered[bit] = true;
    }
    for (const FieldInfo& field : row->fields) {
      for (unsigned bit = field.offset; bit < field.offset + field.width; ++bit) {
        covered[bit] = true;
      }
    }
    std::vector<unsigned> reserved;
    for (unsigned bit = 0; bit < kWordBits; ++bit) {
      if (!covered[bit]) {
        reserved.push_back(bit);
      }
    }
    if (reserved.empty()) {
      return false;
    }
    isa::writeBits(word, reserved[m_rng.below(reserved.size())], 1, 1);
    return true;
  }

  bool swapWords() {
    if (m_words.size() < 2) {
      return false;
    }
    std::swap(m_words[pickWord()], m_words[pickWord()]);
    return true;
  }

  bool duplicateWord() {
    if (m_words.empty() || m_words.size() >= kMaxWords) {
      return false;
    }
    const InstructionWord word = m_words[pickWord()];
    m_words.insert(m_words.begin() + static_cast<std::ptrdiff_t>(m_rng.below(m_words.size() + 1)),
                   word);
    return true;
  }

  bool deleteWord() {
    if (m_words.empty()) {
      return false;
    }
    m_words.erase(m_words.begin() + static_cast<std::ptrdiff_t>(pickWord()));
    return true;
  }

  bool overwriteWord() {
    if (m_words.size() < 2) {
      return false;
    }
    m_words[pickWord()] = m_words[pickWord()];
    return true;
  }

  /// END, the stream's last word in a legal program: made the one last word again, doubled,
  /// dropped, or placed in the middle.
  bool moveEnd() {
    const InstructionWord end{};  // opcode 0, no fields
    const auto isEnd = [](const InstructionWord& word) {
      return isa::readBits(word, 0, isa::kOpcodeBits) ==
             static_cast<std::uint64_t>(isa::Opcode::End);
    };
    switch (m_rng.below(4)) {
      case 0:  // exactly one END, last
        m_words.erase(std::remove_if(m_words.begin(), m_words.end(), isEnd), m_words.end());
        m_words.push_back(end);
        return true;
      case 1:
        if (m_words.size() >= kMaxWords) {
          return false;
        }
        m_words.push_back(end);
        return true;
      case 2: {
        const auto last = std::find_if(m_words.rbegin(), m_words.rend(), isEnd);
        if (last == m_words.rend()) {
          return false;
        }
        m_words.erase(std::next(last).base());
        return true;
      }
      default:
        if (m_words.size() >= kMaxWords) {
          return false;
        }
        m_words.insert(
            m_words.begin() + static_cast<std::ptrdiff_t>(m_rng.below(m_words.size() + 1)), end);
        return true;
    }
  }

  /// A new word of a random opcode with every field at a random legal value: it passes the
  /// decoder's range checks and reaches the rules across fields and the simulators.
  bool insertLegalWord() {
    if (m_words.size() >= kMaxWords) {
      return false;
    }
    const std::span<const isa::OpcodeInfo> table = isa::opcodeTable();
    const isa::OpcodeInfo& row = table[m_rng.below(table.size())];
    InstructionWord word{};
    isa::writeBits(word, 0, isa::kOpcodeBits, static_cast<std::uint64_t>(row.opcode));
    for (const FieldInfo& field : row.fields) {
      isa::writeBits(word, field.offset, field.width,
                     static_cast<std::uint64_t>(legalValue(m_rng, field)) & widthMask(field.width));
    }
    m_words.insert(m_words.begin() + static_cast<std::ptrdiff_t>(m_rng.below(m_words.size() + 1)),
                   word);
    return true;
  }

  std::vector<InstructionWord>& m_words;
  MutationRng& m_rng;
};

}  // namespace

std::optional<std::vector<std::uint8_t>> mutateNpub(std::span<const std::uint8_t> bytes,
                                                    std::uint32_t seed, std::size_t maxSize) {
  const std::optional<CodeSection> code = findCodeSection(bytes);
  if (!code) {
    return std::nullopt;
  }
  const std::size_t wordCount = code->size / kWordBytes;
  std::vector<InstructionWord> words(wordCount);
  for (std::size_t i = 0; i < wordCount; ++i) {
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(code->offset + i * kWordBytes),
                kWordBytes, words[i].begin());
  }
  // A section that is not a whole number of words keeps its ragged tail after the words.
  const auto tail = bytes.subspan(code->offset + wordCount * kWordBytes, code->size % kWordBytes);

  MutationRng rng(seed);
  WordMutator mutator(words, rng);
  if (!applyMutations(rng, [&mutator] { return mutator.mutateOnce(); })) {
    return std::nullopt;
  }

  const std::size_t newCodeSize = words.size() * kWordBytes + tail.size();
  const std::size_t newSize = bytes.size() - code->size + newCodeSize;
  if (newSize > maxSize) {
    return std::nullopt;
  }
  std::vector<std::uint8_t> out(bytes.begin(),
                                bytes.begin() + static_cast<std::ptrdiff_t>(code->offset));
  out.reserve(newSize);
  for (const InstructionWord& word : words) {
    out.insert(out.end(), word.begin(), word.end());
  }
  out.insert(out.end(), tail.begin(), tail.end());
  const std::size_t codeEnd = code->offset + code->size;
  out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(codeEnd), bytes.end());

  // The table and header follow the code section's new length: its own size, the offsets of the
  // sections stored after it, and the file size when the header had it right.
  const std::uint64_t count = getLe(bytes, kCountOffset, 4);
  putLe(out, code->entry + 16, 8, newCodeSize);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::size_t entry = kHeaderBytes + static_cast<std::size_t>(i) * kSectionEntryBytes;
    const std::uint64_t offset = getLe(bytes, entry + 8, 8);
    if (entry != code->entry && offset >= codeEnd) {
      putLe(out, entry + 8, 8, offset - code->size + newCodeSize);
    }
  }
  if (getLe(bytes, kSizeOffset, 8) == bytes.size()) {
    putLe(out, kSizeOffset, 8, out.size());
  }
  putLe(out, kCrcOffset, 4, 0);
  putLe(out, kCrcOffset, 4, crc32(out));
  return out;
}

}  // namespace npu::fuzz
