// Program container: round trip, and corrupted or truncated files always give an error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <string>

#include "npu/isa/assembly.h"
#include "npu/isa/program.h"
#include "npu/support/crc32.h"
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

// Little-endian field access and a file builder written from docs/program-format.md, so that
// tests can make files whose CRC is right and reach the reader's later checks.
std::uint64_t getLe(std::span<const std::uint8_t> bytes, std::size_t at, int width) {
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) {
    v |= std::uint64_t{bytes[at + i]} << (8 * i);
  }
  return v;
}
void putLe(std::vector<std::uint8_t>& bytes, std::size_t at, int width, std::uint64_t v) {
  for (int i = 0; i < width; ++i) {
    bytes[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

/// Recomputes the header CRC (bytes 12..15: CRC-32 of the file with those bytes zero).
void fixCrc(std::vector<std::uint8_t>& bytes) {
  putLe(bytes, 12, 4, 0);
  putLe(bytes, 12, 4, crc32(bytes));
}

struct RawSection {
  std::uint32_t type = 0;
  std::vector<std::uint8_t> body;
};

/// The sections of a well-formed file, in table order.
std::vector<RawSection> sectionsOf(std::span<const std::uint8_t> bytes) {
  std::vector<RawSection> sections;
  for (std::uint64_t i = 0; i < getLe(bytes, 24, 4); ++i) {
    const std::size_t entry = 48 + i * 24;
    const std::size_t offset = getLe(bytes, entry + 8, 8);
    const std::size_t size = getLe(bytes, entry + 16, 8);
    sections.push_back({static_cast<std::uint32_t>(getLe(bytes, entry, 4)),
                        {bytes.begin() + offset, bytes.begin() + offset + size}});
  }
  return sections;
}

/// A file holding `sections` back to back, with a correct size and CRC.
std::vector<std::uint8_t> buildFile(const std::vector<RawSection>& sections,
                                    std::uint64_t codeAddress, std::uint32_t version = 1,
                                    std::string_view magic = std::string_view("NPUPROG\0", 8)) {
  std::vector<std::uint8_t> out(48 + 24 * sections.size());
  std::copy(magic.begin(), magic.end(), out.begin());
  putLe(out, 8, 4, version);
  putLe(out, 24, 4, sections.size());
  putLe(out, 32, 8, codeAddress);
  for (std::size_t i = 0; i < sections.size(); ++i) {
    putLe(out, 48 + i * 24, 4, sections[i].type);
    putLe(out, 48 + i * 24 + 8, 8, out.size());
    putLe(out, 48 + i * 24 + 16, 8, sections[i].body.size());
    out.insert(out.end(), sections[i].body.begin(), sections[i].body.end());
  }
  putLe(out, 16, 8, out.size());
  fixCrc(out);
  return out;
}

/// The small program's file with `from` replaced by `to` (once) in its manifest JSON.
std::vector<std::uint8_t> withManifestEdit(std::string_view from, std::string_view to) {
  std::vector<RawSection> sections = sectionsOf(serializeProgram(smallProgram()));
  RawSection& manifest = sections.at(2);
  EXPECT_EQ(manifest.type, 3U);
  std::string text(manifest.body.begin(), manifest.body.end());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos) << text;
  text.replace(at, from.size(), to);
  manifest.body.assign(text.begin(), text.end());
  return buildFile(sections, 0);
}

TEST(ProgramFile, BuilderReproducesTheWriter) {
  const std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  EXPECT_EQ(buildFile(sectionsOf(bytes), 0), bytes);
}

TEST(ProgramFile, RegionNamesMustBePrintableUtf8) {
  // Names go into the JSON manifest: invalid UTF-8 once killed `npu asm` with an internal error.
  auto error = [](const std::string& name) {
    try {
      (void)assemble(".hw npu-s\n.region " + name + " kind=input base=0x10000 size=64\nEND\n",
                     "names.s", "");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string rejected = "names.s: a manifest region's name is not printable UTF-8";
  EXPECT_EQ(error("caf\xc3\xa9"), "");              // U+00E9: fine
  EXPECT_EQ(error("s\xcd-rc"), rejected);           // a lead byte without its continuation
  EXPECT_EQ(error("a\xc2\x85"), rejected);          // U+0085, a C1 control
  EXPECT_EQ(error("a\xe0\x80\xaf"), rejected);      // an overlong '/'
  EXPECT_EQ(error("a\xed\xa0\x80"), rejected);      // a surrogate
  EXPECT_EQ(error("a\xf4\x90\x80\x80"), rejected);  // above U+10FFFF
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

// Messages of checks behind the CRC, on files whose CRC is right.
TEST(ProgramFile, ExactMessagesBehindTheCrc) {
  const std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  const std::vector<RawSection> sections = sectionsOf(bytes);
  EXPECT_EQ(parseError(buildFile(sections, 0, 1, std::string_view("NPUPROGX", 8))),
            "p.npub: not an NPU program file (bad magic)");
  EXPECT_EQ(parseError(buildFile(sections, 0, 2)),
            "p.npub: unsupported program format version 2 (this build reads 1)");
  EXPECT_EQ(parseError(buildFile(sections, 0, 0)),
            "p.npub: unsupported program format version 0 (this build reads 1)");

  // The last section's size runs one byte past the end of the file.
  const std::size_t last = 48 + (sections.size() - 1) * 24;
  const std::uint64_t lastOffset = getLe(bytes, last + 8, 8);
  std::vector<std::uint8_t> pastEnd = bytes;
  putLe(pastEnd, last + 16, 8, bytes.size() - lastOffset + 1);
  fixCrc(pastEnd);
  EXPECT_EQ(
      parseError(pastEnd),
      fmt::format("p.npub: section {} [offset {}, size {}] does not follow the previous "
                  "section inside the file ({} bytes)",
                  sections.size() - 1, lastOffset, bytes.size() - lastOffset + 1, bytes.size()));
  // The first section's offset lies past the end of the file.
  std::vector<std::uint8_t> offsetPastEnd = bytes;
  putLe(offsetPastEnd, 48 + 8, 8, bytes.size() + 16);
  fixCrc(offsetPastEnd);
  EXPECT_EQ(parseError(offsetPastEnd),
            fmt::format("p.npub: section 0 [offset {}, size {}] does not follow the previous "
                        "section inside the file ({} bytes)",
                        bytes.size() + 16, sections[0].body.size(), bytes.size()));
  // The last section ends one byte early.
  std::vector<std::uint8_t> short1 = bytes;
  putLe(short1, last + 16, 8, bytes.size() - lastOffset - 1);
  fixCrc(short1);
  EXPECT_EQ(parseError(short1), "p.npub: 1 bytes after the last section");

  // Regions: weights moved onto the input region, then onto the instruction stream (6 words).
  EXPECT_EQ(parseError(withManifestEdit("\"base\":8192", "\"base\":4224")),
            "p.npub: region 'weights' [0x1080, 0x1180) overlaps region 'input' [0x1000, 0x1100)");
  EXPECT_EQ(parseError(withManifestEdit("\"base\":8192", "\"base\":160")),
            "p.npub: region 'weights' [0xa0, 0x1a0) overlaps the instruction stream [0x0, 0xc0)");
  // Numbers a conversion could not hold (found by the npub_sealed campaign: 2.4e97 as a base
  // made nlohmann's integer conversion undefined behaviour).
  EXPECT_EQ(parseError(withManifestEdit("\"base\":8192", "\"base\":2.4e97")),
            "p.npub: malformed manifest region 2: 'base' must be a non-negative integer");
  EXPECT_EQ(parseError(withManifestEdit("\"base\":8192", "\"base\":-8192")),
            "p.npub: malformed manifest region 2: 'base' must be a non-negative integer");
  const std::string badJson = parseError(withManifestEdit("\"regions\":[", "\"regions\":[}"));
  // nlohmann's own text is reduced to the place and the meaning (jsonErrorText).
  EXPECT_TRUE(badJson.starts_with("p.npub: manifest section is not valid JSON: line 1, column "))
      << badJson;
  EXPECT_EQ(badJson.find("json.exception"), std::string::npos) << badJson;
  EXPECT_EQ(badJson.find("last read"), std::string::npos) << badJson;
  // A DDR segment moved onto the instruction stream.
  std::vector<RawSection> movedSegment = sections;
  ASSERT_EQ(movedSegment.at(3).type, 4U);
  std::fill_n(movedSegment[3].body.begin(), 8, 0);
  movedSegment[3].body[0] = 0x40;
  EXPECT_EQ(parseError(buildFile(movedSegment, 0)),
            "p.npub: DDR segment 0 [0x40, 0x140) overlaps the instruction stream [0x0, 0xc0)");
}

// Random mutations with the CRC recomputed, so they reach the checks behind it: each outcome is a
// program that round-trips or an npu::Error naming the file, never a crash or another exception.
TEST(ProgramFile, RandomMutationsWithAValidCrcParseOrGiveAnError) {
  const std::vector<std::uint8_t> bytes = serializeProgram(smallProgram());
  static constexpr std::string_view kText = "0123456789\"{}[],:- .e\nx";
  std::mt19937_64 rng(11);
  std::map<std::string, int> outcomes;  // errors by the start of their message
  int valid = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::vector<std::uint8_t> mutated = bytes;
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) {
      const std::size_t at = rng() % mutated.size();
      switch (rng() % 3) {
        case 0:
          mutated[at] ^= static_cast<std::uint8_t>(1 + rng() % 255);
          break;
        case 1:  // a character that keeps text sections plausible
          mutated[at] = static_cast<std::uint8_t>(kText[rng() % kText.size()]);
          break;
        default:  // a small value at any position (counts, offsets, sizes, addresses)
          mutated[at] = static_cast<std::uint8_t>(rng() % 4 == 0 ? 0xff : rng() % 8);
          break;
      }
    }
    fixCrc(mutated);
    try {
      const Program program = parseProgram(mutated, "p.npub");
      ++valid;
      ASSERT_EQ(parseProgram(serializeProgram(program), "p.npub"), program) << "trial " << trial;
    } catch (const Error& e) {
      const std::string message = e.what();
      ASSERT_EQ(message.rfind("p.npub", 0), 0U) << "trial " << trial << ": " << message;
      // fixCrc made every CRC right: the mutation must reach the checks behind it.
      ASSERT_EQ(message.find("CRC-32 mismatch"), std::string::npos)
          << "trial " << trial << ": " << message;
      std::string key;  // digit runs as '#', so that a check's messages share one key
      for (const char c : message) {
        if (!std::isdigit(static_cast<unsigned char>(c))) {
          key += c;
        } else if (key.empty() || key.back() != '#') {
          key += '#';
        }
      }
      key.resize(std::min<std::size_t>(key.size(), 48));
      ++outcomes[key];
    } catch (const std::exception& e) {
      FAIL() << "trial " << trial << ": not an npu::Error: " << e.what();
    }
  }
  std::string summary;
  for (const auto& [key, count] : outcomes) {
    summary += fmt::format("  {} x{}\n", key, count);
  }
  // The mutations reach the checks behind the CRC: no CRC error, and many kinds of error.
  EXPECT_GT(valid, 100) << summary;
  EXPECT_GE(outcomes.size(), 12U) << summary;
}

/// The small program with a layer table: 'load in' [0, 1), 'conv' [1, 2) and [3, 4) (as a
/// cascade interleaves), 'weights' [2, 3); the store, the END, in no layer.
Program layeredProgram() {
  Program program = smallProgram();
  program.layers = {{"load in", {{0, 1}}}, {"conv", {{1, 1}, {3, 1}}}, {"weights", {{2, 1}}}};
  return program;
}

std::string layerError(const Program& program) {
  try {
    validateProgram(program, "p.npub");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ProgramFile, LayersRoundTripAndAreOptional) {
  const Program program = layeredProgram();
  const std::vector<std::uint8_t> bytes = serializeProgram(program);
  EXPECT_EQ(parseProgram(bytes, "p.npub"), program);
  const std::vector<RawSection> sections = sectionsOf(bytes);
  const std::string manifest(sections.at(2).body.begin(), sections.at(2).body.end());
  EXPECT_NE(manifest.find(R"("layers":[{"name":"load in","ranges":[{"count":1,"first":0}]},)"),
            std::string::npos)
      << manifest;
  // Without layers the manifest has no "layers" key: assembled programs' files are unchanged.
  const std::vector<RawSection> plain = sectionsOf(serializeProgram(smallProgram()));
  EXPECT_EQ(std::string(plain.at(2).body.begin(), plain.at(2).body.end()).find("layers"),
            std::string::npos);
  EXPECT_EQ(instructionLayers(program), (std::vector<std::int64_t>{0, 1, 2, 1, -1, -1}));
}

TEST(ProgramFile, LayerTableIsValidated) {
  auto with = [](std::vector<ProgramLayer> layers) {
    Program program = smallProgram();
    program.layers = std::move(layers);
    return layerError(program);
  };
  EXPECT_EQ(with({{"a", {{0, 2}}}, {"b", {{1, 1}}}}),
            "p.npub: instruction 1 is in layer 'a' and in layer 'b'");
  EXPECT_EQ(with({{"a", {{4, 3}}}}),
            "p.npub: layer 'a': instruction range [4, +3) is empty or outside the 6 instructions");
  EXPECT_EQ(with({{"a", {{2, 0}}}}),
            "p.npub: layer 'a': instruction range [2, +0) is empty or outside the 6 instructions");
  EXPECT_EQ(with({{"a", {{2, 1}, {3, 1}}}}),
            "p.npub: layer 'a': instruction range 1 starts at 3, not after the previous one (ends "
            "at 3)");
  EXPECT_EQ(with({{"a", {{3, 1}, {0, 1}}}}),
            "p.npub: layer 'a': instruction range 1 starts at 0, not after the previous one (ends "
            "at 4)");
  EXPECT_EQ(with({{"", {{0, 1}}}}), "p.npub: a manifest layer has an empty name");
  EXPECT_EQ(with({{"a\n", {{0, 1}}}}), "p.npub: a manifest layer's name is not printable UTF-8");
  EXPECT_EQ(with({{"a", {}}}), "p.npub: layer 'a' has no instruction range");
  // More ranges than instructions: refused before anything is allocated per range.
  EXPECT_EQ(with({{"a", std::vector<InstructionRange>(7, {0, 1})}}),
            "p.npub: the manifest lists more layer ranges than the program has instructions (6)");
  EXPECT_EQ(with({{"a", {{0, 1}}}, {"a", {{1, 1}}}}), "(no error)");  // names may repeat

  // The reader: the JSON's shape.
  const std::vector<std::uint8_t> bytes = serializeProgram(layeredProgram());
  std::vector<RawSection> sections = sectionsOf(bytes);
  auto edited = [&](std::string_view from, std::string_view to) {
    std::vector<RawSection> copy = sections;
    std::string text(copy.at(2).body.begin(), copy.at(2).body.end());
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << text;
    text.replace(at, from.size(), to);
    copy.at(2).body.assign(text.begin(), text.end());
    return parseError(buildFile(copy, 0));
  };
  EXPECT_EQ(edited(R"("layers":[)", R"("layers":7,"x":[)"),
            "p.npub: manifest must be an object with one 'regions' array and optionally 'layers'");
  EXPECT_EQ(edited(R"("name":"conv",)", R"("name":"conv","extra":1,)"),
            "p.npub: manifest layer entries need exactly the keys 'name' and 'ranges' (an array)");
  EXPECT_EQ(edited(R"({"count":1,"first":2})", R"({"count":1,"first":2,"x":0})"),
            "p.npub: layer 'weights': a range needs exactly the keys 'first' and 'count'");
  EXPECT_EQ(edited(R"({"count":1,"first":2})", R"({"count":1,"first":1})"),
            "p.npub: instruction 1 is in layer 'conv' and in layer 'weights'");
  EXPECT_EQ(edited(R"({"count":1,"first":2})", R"({"count":1,"first":-2})"),
            "p.npub: layer 'weights': 'first' and 'count' must be non-negative integers");
  EXPECT_EQ(edited(R"({"count":1,"first":2})", R"({"count":1.5,"first":2})"),
            "p.npub: layer 'weights': 'first' and 'count' must be non-negative integers");
}

TEST(ProgramFile, DisassemblyShowsLayersAndStillAssembles) {
  const Program program = layeredProgram();
  const std::string text = disassemble(program);
  EXPECT_NE(text.find("; layer 'load in' (instructions 0..0)\nLOAD ddr_addr=0x1000"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; layer 'conv' (instructions 1..1, range 1 of 2)\nLOAD buf=1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("; layer 'conv' (instructions 3..3, range 2 of 2)\nCONV"), std::string::npos)
      << text;
  // The comments are skipped: the text assembles to the program without its layer table.
  Program reassembled = assemble(text, "layers.s", "");
  EXPECT_TRUE(reassembled.layers.empty());
  reassembled.layers = program.layers;
  EXPECT_EQ(reassembled, program);
  EXPECT_EQ(disassemble(smallProgram()).find("; layer"), std::string::npos);
}

TEST(ProgramFile, WriterRejectsInvalidPrograms) {
  Program program = smallProgram();
  program.regions.push_back(program.regions.front());
  EXPECT_THROW(serializeProgram(program), Error);
}

}  // namespace
}  // namespace npu::isa
