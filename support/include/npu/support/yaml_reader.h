// Strict YAML reading shared by every input file: one error format, `FILE:LINE: message`.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "npu/support/error.h"

namespace npu::yaml {

/// A YAML node together with the file it came from and its key path ("ddr.size_bytes"). Every
/// error it raises is a bad-input npu::Error reading `FILE:LINE: message`, LINE being the line
/// the node starts on, so all readers (hardware config, quantization config, graphs, bench
/// suites and baselines, opcheck repros, bundle manifests) report alike.
class Node {
 public:
  Node(YAML::Node node, std::string source, std::string path = {})
      : m_node(std::move(node)), m_source(std::move(source)), m_path(std::move(path)) {}

  /// The yaml-cpp node, for readers that walk it themselves.
  [[nodiscard]] const YAML::Node& raw() const { return m_node; }
  /// The file name (or other source name) errors start with.
  [[nodiscard]] const std::string& source() const { return m_source; }
  /// The dotted key path from the document root ("" for the root).
  [[nodiscard]] const std::string& path() const { return m_path; }
  /// `FILE:LINE` of this node.
  [[nodiscard]] std::string at() const;

  /// Throws `FILE:LINE: <message>` for this node.
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw Error(fmt::format("{}: {}", at(), fmt::format(format, std::forward<Args>(args)...)));
  }

  /// Requires a mapping whose keys all are in `allowed`; otherwise `FILE:LINE: unknown key 'K'
  /// in WHAT (keys: a, b)` at the key, or `FILE:LINE: WHAT must be a mapping`.
  void expectMap(std::string_view what, std::span<const std::string_view> allowed) const;
  void expectMap(std::string_view what, std::initializer_list<std::string_view> allowed) const {
    expectMap(what, std::span<const std::string_view>(allowed.begin(), allowed.size()));
  }
  /// The value of `key`, or `FILE:LINE: missing key 'K' in WHAT` at this mapping.
  [[nodiscard]] Node required(std::string_view key, std::string_view what) const;
  /// The value of `key` if the mapping has it.
  [[nodiscard]] std::optional<Node> optional(std::string_view key) const;

  /// A scalar as text: `FILE:LINE: 'PATH' must be a single value` otherwise.
  [[nodiscard]] std::string text() const;
  /// A non-empty scalar.
  [[nodiscard]] std::string nonEmptyText() const;
  /// An integer in [lowest, highest]: `FILE:LINE: 'PATH': expected an integer, got 'x'` or
  /// `FILE:LINE: 'PATH': V is out of range [LO, HI]`.
  [[nodiscard]] std::int64_t integer(std::int64_t lowest, std::int64_t highest) const;
  /// A finite number: `FILE:LINE: 'PATH': expected a number, got 'x'`.
  [[nodiscard]] double number() const;
  /// true or false: `FILE:LINE: 'PATH': expected true or false, got 'x'`.
  [[nodiscard]] bool boolean() const;
  /// The items of a sequence (`FILE:LINE: 'PATH' must be a list` otherwise).
  [[nodiscard]] std::vector<Node> items() const;

  /// `'PATH'` for messages, or "the document" at the root.
  [[nodiscard]] std::string name() const;

 private:
  YAML::Node m_node;
  std::string m_source;
  std::string m_path;
};

/// Throws `SOURCE:LINE: <what went wrong, in our words>` for an exception yaml-cpp raised while a
/// reader walked a document (the readers' last resort: yaml-cpp's own text, "bad conversion",
/// "operator[] call on a scalar", says nothing to someone who did not write the reader).
[[noreturn]] void failOnYamlException(const YAML::Exception& exception, std::string_view source);

/// A document's aliases may expand it to at most kAliasExpansionFactor times the nodes its text
/// spells out, or kExpandedNodeFloor nodes, whichever is more (docs/reliability.md).
inline constexpr std::uint64_t kAliasExpansionFactor = 16;
inline constexpr std::uint64_t kExpandedNodeFloor = 10000;

/// Parses `text` read from `source`; a syntax error is `SOURCE:LINE:COL: YAML syntax error: MSG`,
/// aliases multiplying the text `SOURCE:LINE:COL: aliases expand the document to more than ...`.
[[nodiscard]] Node parse(std::string_view text, std::string_view source);

/// Reads and parses a file; errors name the file as given.
[[nodiscard]] Node load(const std::filesystem::path& path);

}  // namespace npu::yaml
