// The shared YAML reader: every error reads `FILE:LINE: ...` (syntax errors `FILE:LINE:COL: ...`).
#include "npu/support/yaml_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "npu/support/error.h"

namespace npu::yaml {
namespace {

/// The message of the error `read` throws for `text`, or "(no error)".
template <typename Read>
std::string errorOf(const std::string& text, Read read) {
  try {
    read(parse(text, "f.yaml"));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    return e.what();
  }
  return "(no error)";
}

TEST(YamlReader, SyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(errorOf("a: [1,\n", [](const Node&) {}),
            "f.yaml:2:1: YAML syntax error: end of sequence flow not found");
}

// Nine lines of nested aliases would make a reader visit 10^9 nodes ("billion laughs"); the
// parse stops at the alias that crosses the bound. A few aliases reusing a block stay allowed.
TEST(YamlReader, AliasesCannotMultiplyTheFile) {
  std::string bomb = "a0: &a0 [x, y]\n";
  for (int level = 1; level <= 8; ++level) {
    bomb += fmt::format("a{}: &a{} [", level, level);
    for (int i = 0; i < 10; ++i) {
      bomb += fmt::format("{}*a{}", i == 0 ? "" : ", ", level - 1);
    }
    bomb += "]\n";
  }
  const std::string error = errorOf(bomb, [](const Node&) {});
  // Level 4 (line 5) holds 1 + 10 * 3,111 nodes; its third alias crosses 10,000.
  EXPECT_TRUE(error.starts_with("f.yaml:5:")) << error;
  EXPECT_NE(error.find("aliases expand the document to more than 10000 nodes"), std::string::npos)
      << error;
  EXPECT_NE(error.find("YAML aliases may not multiply a file's size"), std::string::npos) << error;

  const std::string reuse =
      "base: &base {method: mse, symmetric: true}\nlist: [*base, *base, *base, *base]\n";
  EXPECT_EQ(errorOf(reuse, [](const Node& root) { EXPECT_EQ(root.raw()["list"].size(), 4U); }),
            "(no error)");
}

// What a reader converts without checking first is answered in our words, at the node's line.
TEST(YamlReader, LibraryExceptionsAreTranslated) {
  const auto translated = [](const std::string& text, auto convert) {
    const YAML::Node root = parse(text, "f.yaml").raw();
    try {
      convert(root);
    } catch (const YAML::Exception& e) {
      try {
        failOnYamlException(e, "f.yaml");
      } catch (const Error& error) {
        return std::string(error.what());
      }
    }
    return std::string("(no exception)");
  };
  EXPECT_EQ(
      translated("a: 1\nb: [1, 2]\n", [](const YAML::Node& r) { (void)r["b"].as<std::int64_t>(); }),
      "f.yaml:2: a value has the wrong form (a list or mapping where a single value "
      "belongs, or text where a number belongs)");
  EXPECT_EQ(translated("a: x\n", [](const YAML::Node& r) { (void)r["a"].as<double>(); }),
            "f.yaml:1: a value has the wrong form (a list or mapping where a single value "
            "belongs, or text where a number belongs)");
  EXPECT_EQ(translated("a: 1\n", [](const YAML::Node& r) { YAML::Node(r["a"]).push_back(2); }),
            "f.yaml:1: a single value or a mapping stands where a list belongs");
  EXPECT_EQ(translated("a: 1\n", [](const YAML::Node& r) { (void)r["a"].as<int>(); }),
            "(no exception)");
}

TEST(YamlReader, UnknownAndMissingKeys) {
  const auto check = [](const Node& root) {
    root.expectMap("the test", {"a", "b"});
    (void)root.required("b", "the test");
  };
  EXPECT_EQ(errorOf("a: 1\nc: 2\n", check), "f.yaml:2: unknown key 'c' in the test (keys: a, b)");
  EXPECT_EQ(errorOf("a: 1\n", check), "f.yaml:1: missing key 'b' in the test");
  EXPECT_EQ(errorOf("- 1\n", check), "f.yaml:1: the test must be a mapping");
  EXPECT_EQ(errorOf("a: 1\nb: 2\n", check), "(no error)");
}

TEST(YamlReader, TypedGettersWithRanges) {
  const auto integer = [](const Node& root) {
    (void)root.required("s", "x").required("n", "'s'").integer(1, 8);
  };
  EXPECT_EQ(errorOf("s:\n  n: 9\n", integer), "f.yaml:2: 's.n': 9 is out of range [1, 8]");
  EXPECT_EQ(errorOf("s:\n  n: two\n", integer), "f.yaml:2: 's.n': expected an integer, got 'two'");
  EXPECT_EQ(errorOf("s:\n  n: [1]\n", integer), "f.yaml:2: 's.n' must be a single value");
  EXPECT_EQ(errorOf("s: {n: 3}\n", integer), "(no error)");
  EXPECT_EQ(errorOf("x: .inf\n", [](const Node& root) { (void)root.required("x", "").number(); }),
            "f.yaml:1: 'x': expected a finite number, got '.inf'");
  EXPECT_EQ(errorOf("x: maybe\n", [](const Node& root) { (void)root.required("x", "").boolean(); }),
            "f.yaml:1: 'x': expected true or false, got 'maybe'");
  EXPECT_EQ(
      errorOf("x: ''\n", [](const Node& root) { (void)root.required("x", "").nonEmptyText(); }),
      "f.yaml:1: 'x' must not be empty");
}

TEST(YamlReader, ItemsCarryTheirPath) {
  const Node root = parse("l:\n  - 1\n  - 300\n", "f.yaml");
  const std::vector<Node> items = root.required("l", "").items();
  ASSERT_EQ(items.size(), 2U);
  EXPECT_EQ(items[0].integer(0, 255), 1);
  try {
    (void)items[1].integer(0, 255);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "f.yaml:3: 'l[1]': 300 is out of range [0, 255]");
  }
}

}  // namespace
}  // namespace npu::yaml
