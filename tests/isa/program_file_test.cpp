// Program container: round trip, and corrupted or truncated files always give an error.
#include <gtest/gtest.h>

#include <random>

#include "npu/isa/assembly.h"
#include "npu/isa/program.h"
#include "npu/support/error.h"
#include "test_paths.h"

namespace npu::isa {
namespace {

Program smallProgram() {
  return assembleFile(testing::sourcePath("examples/asm/smoke.s"));
}

std::string parseError(std::span<const std::uint8_t> bytes) {
  try {
    parseProgram(bytes, "p.npub");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ProgramFile, RoundTrips) {
  const Program program = smallProgram();
  const std::vector<std::uint8_t> bytes = serializeProgram(program);
  EXPECT_EQ(parseProgram(bytes, "p.npub"), program);
  EXPECT_EQ(serializeProgram(parseProgram(bytes, "p.npub")), bytes);
}

TEST(ProgramFile, EveryTruncationIsAnError) {
  const std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    const std::string message = parseError(std::span(bytes).first(length));
    ASSERT_NE(message, "(no error)") << "length " << length;
    ASSERT_EQ(message.rfind("p.npub: ", 0), 0U) << message;
  }
}

TEST(ProgramFile, EveryRandomByteFlipIsAnError) {
  const std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<std::uint8_t> corrupted = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      corrupted[rng() % corrupted.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    }
    if (corrupted == bytes) {
      continue;
    }
    ASSERT_NE(parseError(corrupted), "(no error)") << "trial " << trial;
  }
}

TEST(ProgramFile, ExactMessages) {
  std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  EXPECT_EQ(parseError(std::span(bytes).first(10)),
            "p.npub: truncated program file: 10 bytes, the header alone needs 48");
  std::vector<std::uint8_t> badMagic = bytes;
  badMagic[0] = 'X';
  EXPECT_EQ(parseError(badMagic), "p.npub: not an NPU program file (bad magic)");
  std::vector<std::uint8_t> badVersion = bytes;
  badVersion[8] = 9;
  EXPECT_EQ(parseError(badVersion),
            "p.npub: unsupported program format version 9 (this build reads 1)");
  EXPECT_EQ(parseError(std::span(bytes).first(bytes.size() - 1)),
            fmt::format("p.npub: file is {} bytes but its header says {} (truncated or padded)",
                        bytes.size() - 1, bytes.size()));
  std::vector<std::uint8_t> flipped = bytes;
  flipped.back() ^= 0x01;
  EXPECT_EQ(parseError(flipped).substr(0, 30), "p.npub: CRC-32 mismatch (store");
}

TEST(ProgramFile, WriterRejectsInvalidPrograms) {
  Program program = smallProgram();
  program.regions.push_back(program.regions.front());
  EXPECT_THROW(serializeProgram(program), Error);
}

}  // namespace
}  // namespace npu::isa
