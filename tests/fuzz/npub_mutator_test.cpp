// The instruction-word mutator (fuzz/mutators/npub_mutator.h) on an assembled program: what it
// writes is a well-formed container (table, size and CRC right) around changed words, often a
// valid program still, the same for the same seed, and within the size it is given.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "npu/isa/assembly.h"
#include "npu/isa/program.h"
#include "npu/support/error.h"
#include "npub_mutator.h"

namespace npu::fuzz {
namespace {

constexpr std::uint32_t kSeeds = 1000;

std::vector<std::uint8_t> convSplit() {
  const isa::Program program =
      isa::assembleFile(std::filesystem::path(NPU_SOURCE_DIR) / "tests/data/sim/conv_split.s");
  return isa::serializeProgram(program);
}

/// Empty when the bytes parse as a program, else the reader's message.
std::string parseError(const std::vector<std::uint8_t>& bytes) {
  try {
    (void)isa::parseProgram(bytes, "mutated.npub");
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

TEST(NpubMutator, OutputsAreContainersWithChangedWords) {
  const std::vector<std::uint8_t> program = convSplit();
  const std::size_t original = isa::parseProgram(program, "seed.npub").instructions.size();
  const std::size_t maxSize = program.size() + 64 * 32;
  std::size_t produced = 0;
  std::size_t changed = 0;
  std::size_t parsed = 0;
  std::size_t resized = 0;
  std::set<std::vector<std::uint8_t>> distinct;
  for (std::uint32_t seed = 0; seed < kSeeds; ++seed) {
    const auto out = mutateNpub(program, seed, maxSize);
    if (!out) {
      continue;
    }
    ++produced;
    ASSERT_LE(out->size(), maxSize) << "seed " << seed;
    changed += *out != program ? 1 : 0;
    resized += out->size() != program.size() ? 1 : 0;
    distinct.insert(*out);
    const std::string error = parseError(*out);
    if (error.empty()) {
      ++parsed;
      continue;
    }
    // The container around the words is always rebuilt right: what is refused is the code.
    for (const char* container : {"CRC-32", "header says", "does not follow", "after the last"}) {
      EXPECT_EQ(error.find(container), std::string::npos) << "seed " << seed << ": " << error;
    }
  }
  EXPECT_GE(produced, kSeeds * 99 / 100);
  EXPECT_GE(changed, produced * 9 / 10);
  EXPECT_GE(distinct.size(), produced * 3 / 4);
  EXPECT_GE(resized, produced / 10);  // words are inserted and deleted, not only edited
  // Field edits inside the legal ranges keep a share of programs valid; the rest reach the
  // decoder's and validator's checks.
  EXPECT_GE(parsed, produced / 10)
      << parsed << " of " << produced << " parsed (" << original << " words in the seed)";
  EXPECT_LE(parsed, produced * 9 / 10) << parsed << " of " << produced << " parsed";
}

TEST(NpubMutator, SameSeedSameOutput) {
  const std::vector<std::uint8_t> program = convSplit();
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    EXPECT_EQ(mutateNpub(program, seed, 1 << 20), mutateNpub(program, seed, 1 << 20))
        << "seed " << seed;
  }
  EXPECT_NE(mutateNpub(program, 1, 1 << 20), mutateNpub(program, 2, 1 << 20));
}

TEST(NpubMutator, NeverExceedsMaxSize) {
  const std::vector<std::uint8_t> program = convSplit();
  std::size_t produced = 0;
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    const auto out = mutateNpub(program, seed, program.size());
    if (out) {
      ++produced;
      EXPECT_LE(out->size(), program.size()) << "seed " << seed;
    }
  }
  EXPECT_GT(produced, 0U);
  EXPECT_LT(produced, 300U);  // some seeds add words, which does not fit
}

TEST(NpubMutator, ChainedMutationsKeepTheContainerWellFormed) {
  std::vector<std::uint8_t> program = convSplit();
  for (std::uint32_t seed = 0; seed < 300; ++seed) {
    auto out = mutateNpub(program, seed, 1 << 20);
    ASSERT_TRUE(out) << "seed " << seed;
    program = std::move(*out);
    const std::string error = parseError(program);
    EXPECT_EQ(error.find("CRC-32"), std::string::npos) << "step " << seed << ": " << error;
    EXPECT_EQ(error.find("does not follow"), std::string::npos) << "step " << seed << ": " << error;
  }
}

TEST(NpubMutator, BytesThatAreNotAContainerAreLeftToTheByteMutator) {
  std::vector<std::uint8_t> program = convSplit();
  EXPECT_FALSE(mutateNpub(std::vector<std::uint8_t>(program.begin(), program.begin() + 40), 3,
                          4096));  // shorter than the header
  program[0] = 'X';                // bad magic
  EXPECT_FALSE(mutateNpub(program, 3, 1 << 20));
}

}  // namespace
}  // namespace npu::fuzz
